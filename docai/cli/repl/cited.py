"""`/fontes N` and `/abrir N`: one passage the last answer cited, read whole or opened.

`/fontes` lists the sources with the first words of each; the answer cites them by number,
so the same number shows the whole passage (its label, then its text as it was indexed and
sent to the model, made safe for the terminal), and `/abrir N` opens its file in the
user's editor (`$VISUAL`, `$EDITOR`, as `/editar` finds it) at its line: `+LINE` is what
vi, nano, emacs, micro and most editors take. A PDF page or a notebook cell is named
instead, with the file's path, for the user's own viewer.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from docai import messages
from docai.cli.output.passages import located, source_label
from docai.cli.repl.editor import EditorSettingError, editor_command
from docai.cli.terminal_text import strip_controls
from docai.folders import file_inside
from docai.records import Hit

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session


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


def open_passage(session: Session, sources: tuple[Hit, ...], argument: str) -> None:
    hit, problem = cited_passage(sources, argument)
    if hit is None:
        session.say((problem or "").replace("/fontes", "/abrir"))
        return
    chunk = hit.chunk
    settings = session.answerer.settings
    path = file_inside(settings.docs_dir, chunk.source, settings.link_roots())
    if path is None:  # a shared collection's file this client does not have
        session.say(messages.OPEN_NOT_HERE.format(source=source_label(hit)))
        return
    location = chunk.location
    shown = located(str(path), location)
    if location is not None and location.unit != "line":
        session.say(messages.OPEN_ELSEWHERE.format(where=shown))
        return
    if not session.interactive:
        session.say(messages.OPEN_NEEDS_TERMINAL.format(where=shown))
        return
    try:
        command = editor_command()
    except EditorSettingError as error:
        session.say(str(error))
        return
    if command is None:
        session.say(messages.OPEN_NO_EDITOR.format(where=shown))
        return
    at_line = [f"+{location.number}"] if location is not None else []
    try:
        subprocess.call([*command, *at_line, str(path)])
    except OSError as error:
        session.say(messages.EDIT_FAILED.format(editor=" ".join(command),
                                                reason=error.strerror or error))


