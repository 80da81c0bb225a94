"""`/salvar ARQUIVO.md`: the conversation so far as Markdown, each answer with its sources.

The file starts with a marker line, so saving again to the same name updates docai's own
file, while a file docai did not write is never overwritten (it may be the user's notes).
The write is atomic (a temp file renamed over the old one) and private (0600): questions
can name private things.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from docai import messages
from docai.answer.conversation import Conversation, Turn
from docai.cli.output.passages import source_label
from docai.cli.terminal_text import one_line, strip_controls
from docai.errors import SettingsError
from docai.folders import user_folder
from docai.index.storage import write_atomic
from docai.loading.transcripts import TRANSCRIPT_MARKER
from docai.settings import Settings
from docai.text.analysis import surely_english

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session

def markdown(conversation: Conversation, *, docs: str, model: str, when: datetime,
             links: Callable[[str], str | None] = lambda source: None) -> str:
    """The transcript (pure): a title, then per turn the question quoted, the answer as the
    model wrote it (Markdown already) and its sources numbered as the answer cites them,
    each a link where `links` gives the file's address (relative to the transcript)."""
    parts = [TRANSCRIPT_MARKER, messages.TRANSCRIPT_TITLE.format(docs=docs),
             messages.TRANSCRIPT_SAVED_AT.format(time=when.strftime("%Y-%m-%d %H:%M"),
                                                 model=model)]
    for number, turn in enumerate(conversation.turns, start=1):
        parts += _turn(number, turn, links)
    return "\n\n".join(parts) + "\n"


def save_conversation(session: Session, argument: str) -> None:
    if not argument:
        session.say(messages.SAVE_USAGE)
        return
    conversation = session.conversation
    if not conversation.turns:
        session.say(messages.SAVE_NOTHING)
        return
    try:  # `~user` expanded, a NUL, an unknown user or an over-long path said in one line
        path = user_folder(argument, "/salvar")
    except SettingsError as error:
        session.say(one_line(str(error)))
        return
    shown = one_line(str(path))
    settings = session.answerer.settings
    text = markdown(conversation, docs=_what_was_asked_about(settings),
                    model=settings.model, when=datetime.now(),
                    links=_file_links(settings, path))
    try:
        if path.exists() and not _written_by_docai(path):
            session.say(messages.SAVE_EXISTS.format(path=shown))
            return
        write_atomic(path, lambda handle: handle.write(text.encode("utf-8")))
    except OSError as error:
        reason = error.strerror or str(error)
        session.say(messages.SAVE_FAILED.format(path=shown, reason=reason))
        return
    session.say(messages.SAVED.format(path=shown, count=len(conversation.turns)))
    if not settings.store and _inside(path, settings.docs_dir):
        session.say(messages.SAVED_IN_DOCS)


def _what_was_asked_about(settings: Settings) -> str:
    """The transcript's title: the docs folder, or in store mode the shared collection (a
    client's docs folder need not exist)."""
    if settings.store:
        return messages.TRANSCRIPT_COLLECTION.format(collection=settings.resolved_collection())
    return str(settings.docs_dir.expanduser().resolve())


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.expanduser().resolve())
    except (OSError, RuntimeError):
        return False


def _turn(number: int, turn: Turn, links: Callable[[str], str | None]) -> list[str]:
    lines = strip_controls(turn.question).strip().splitlines() or [""]
    parts = [f"## {number}. {one_line(lines[0])}".rstrip()]
    if len(lines) > 1:  # a heading holds one line: the whole question is quoted below it
        parts.append("\n".join(f"> {line}".rstrip() for line in lines))
    parts.append(strip_controls(turn.answer).strip() or _no_answer(turn))
    if turn.sources:
        listed = "\n".join(f"{n}. {_linked(source_label(hit), links(hit.chunk.source))}"
                           for n, hit in enumerate(turn.sources, start=1))
        parts.append(f"{messages.TRANSCRIPT_SOURCES}\n\n{listed}")
    return parts


def _linked(label: str, address: str | None) -> str:
    if address is None:
        return label
    escaped = label.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{escaped}]({address})"


def _file_links(settings: Settings, transcript: Path) -> Callable[[str], str | None]:
    """A source's address as the saved file links it: relative to the transcript's folder,
    so the pair can move together; none for a shared collection this client lacks."""
    if settings.store and not settings.docs_dir.is_dir():
        return lambda source: None
    docs = settings.docs_dir.expanduser().resolve()
    folder = transcript.expanduser().resolve().parent

    def link(source: str) -> str | None:
        target = docs / source
        if not target.is_file():
            return None
        return quote(os.path.relpath(target, folder).replace(os.sep, "/"))

    return link


def _no_answer(turn: Turn) -> str:
    """What the user saw instead of an answer: the refusal as docai said it, or a note."""
    if turn.refused:
        english = surely_english(turn.question)
        return messages.ANSWER_NOT_COVERED_EN if english else messages.ANSWER_NOT_COVERED
    return messages.TRANSCRIPT_NO_ANSWER


def _written_by_docai(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.readline().rstrip(b"\r\n") == TRANSCRIPT_MARKER.encode()
