"""`/fontes N`: one passage the last answer cited, read whole.

`/fontes` lists the sources with the first words of each; the answer cites them by number,
so the same number shows the whole passage: its label, then its text as it was indexed
(and sent to the model), made safe for the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docai import messages
from docai.cli.passages import source_label
from docai.cli.terminal_text import strip_controls
from docai.records import Hit

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl_commands import Session


def cited_passage(sources: tuple[Hit, ...], argument: str) -> tuple[Hit | None, str | None]:
    """(the passage `argument` numbers among `sources`, or why there is none)."""
    try:
        number = int(argument)
    except ValueError:
        return None, messages.CITED_BAD_NUMBER.format(value=argument, count=len(sources))
    if not 1 <= number <= len(sources):
        return None, messages.CITED_BAD_NUMBER.format(value=argument, count=len(sources))
    return sources[number - 1], None


def show_passage(session: Session, sources: tuple[Hit, ...], argument: str) -> None:
    hit, problem = cited_passage(sources, argument)
    if hit is None:
        session.say(problem or "")
        return
    number = sources.index(hit) + 1
    session.say(messages.CITED_HEADER.format(number=number, label=source_label(hit)))
    session.say(strip_controls(hit.chunk.text).strip())
