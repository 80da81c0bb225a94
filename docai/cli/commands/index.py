"""`docai index`: build or refresh the index and say what changed and how long it took.

Exit status 2 when nothing could be indexed (as the other commands refuse to start then),
after the full account, so the user sees which files were skipped and why.
"""

from __future__ import annotations

import sys

from docai import messages
from docai.cli.progress import progress_bar
from docai.cli.report import status_lines, summary_lines
from docai.cli.startup import empty_index_problem
from docai.index.build import build_index
from docai.settings import Settings


def run(settings: Settings) -> int:
    _, report = build_index(settings, progress=progress_bar)
    for line in status_lines(report):
        print(line, file=sys.stderr)
    for line in summary_lines(report, settings.docs_dir, settings.resolved_cache_dir()):
        print(line)
    if (problem := empty_index_problem(report, settings.docs_dir)) is not None:
        print(messages.ERROR_PREFIX.format(message=problem), file=sys.stderr)
        return 2
    return 0
