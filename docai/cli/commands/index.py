"""`docai index`: build or refresh the index and say what changed and how long it took.

Exit status 2 when nothing could be indexed (as the other commands refuse to start then),
or when the index could not be saved (an unwritable, full or misplaced cache folder), each
after the full account, so the user sees what was built, which files were skipped and why.
Not saving is a failure here, unlike for the other commands (which answer from the index in
memory and warn): saving is what `docai index` is run for. 2, not 1, because the fix is the
user's (a writable `--cache-dir`), as with every `DocaiError`; 1 means the model failed.
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
    cache_dir = settings.resolved_cache_dir()
    for line in summary_lines(report, settings.docs_dir, cache_dir):
        print(line)
    problems = [empty_index_problem(report, settings.docs_dir)]
    if report.cache_warning is not None:
        problems.append(messages.INDEX_NOT_SAVED.format(path=cache_dir))
    for problem in filter(None, problems):
        print(messages.ERROR_PREFIX.format(message=problem), file=sys.stderr)
    return 2 if any(problems) else 0
