"""`docai status`: what the index of a docs folder holds, read without changing anything
(`cli.folder_status`); `--json` gives the same as one object. A store collection's status is
what `docai store list` says of it.
"""

from __future__ import annotations

from docai.cli.output.folder_status import describe, summary_lines
from docai.cli.terminal_text import json_text
from docai.index.reuse import survey
from docai.settings import Settings


def run(settings: Settings) -> int:
    if settings.store:  # a shared collection: what `docai store list` says of it
        from docai.cli.commands.store import collection_status

        return collection_status(settings)
    status = describe(survey(settings), settings)
    if settings.json_output:
        print(json_text(status))
    else:
        print("\n".join(summary_lines(status)))
    return 0
