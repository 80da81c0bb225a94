"""`docai index`: build or refresh the index and say what changed and how long it took."""

from __future__ import annotations

import sys

from docai.build import open_index
from docai.report import status_lines, summary_lines
from docai.settings import Settings


def run(settings: Settings) -> int:
    _, report = open_index(settings, progress=True)
    for line in status_lines(report, settings.docs_dir):
        print(line, file=sys.stderr)
    for line in summary_lines(report, settings.docs_dir, settings.resolved_cache_dir()):
        print(line)
    return 0
