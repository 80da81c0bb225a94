"""`docai log`: the last exchanges of the log, oldest first (the newest ends where the eye is).

Every docs folder's by default; with `--docs` given on the command line, only that
folder's. `--json` writes one JSON array on stdout (the fields of `LoggedExchange`, sources
as `{source, heading, chunk}`), `--search` keeps the exchanges holding every word. Reading
never creates the log: a user who never asked anything has nothing to see, not a new file.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docai import messages
from docai.cli.options.config import Sourced
from docai.cli.repl.sessions import local_time
from docai.cli.session_log import collection_of, logged_under
from docai.cli.terminal_text import json_text, one_line, strip_controls
from docai.errors import SettingsError
from docai.log import ExchangeLog, LogError, LoggedExchange, default_log_path
from docai.settings import Settings, config_file

ANSWER_LINES = 3  # of each answer, in the plain listing
WIDTH = 96


def run(settings: Settings, values: dict[str, Sourced], *, limit: int,
        words: Sequence[str]) -> int:
    if limit < 0:
        raise SettingsError(messages.LOG_BAD_LIMIT.format(value=limit))
    given_docs = values["docs"].origin.kind == messages.ORIGIN_OPTION
    path = default_log_path()
    exchanges: list[LoggedExchange] = []
    names: dict[int, str] = {}
    if path.exists():
        try:
            exchanges, names = _read(path, limit, words,
                                     collection_of(settings) if given_docs else None)
        except LogError as error:
            advice = (messages.LOG_READ_LOCKED if error.locked else
                      messages.LOG_READ_UNWRITABLE if error.unwritable else
                      messages.LOG_READ_FAILED)
            raise LogError(advice.format(problem=error), locked=error.locked) from None
    if settings.json_output:
        print(json_text([as_json(exchange) for exchange in exchanges]))
        return 0
    if not exchanges:
        if words:
            print(messages.LOG_NOTHING_FOUND.format(words=" ".join(words)))
        elif given_docs:
            print(messages.LOG_EMPTY_FOR_DOCS.format(docs=one_line(collection_of(settings))))
        else:
            print(messages.LOG_EMPTY)
        if not settings.log:
            print(messages.LOG_OFF_NOTE.format(path=config_file()))
        return 0
    print("\n\n".join(_grouped(exchanges, names)))
    return 0


def _grouped(exchanges: list[LoggedExchange], names: dict[int, str]) -> list[str]:
    """Each exchange as text, a conversation's header before its first one (the number
    `/sessoes`, `/retomar` and `--json` use)."""
    shown: list[str] = []
    current: int | None = None
    for exchange in exchanges:
        text = _human(exchange)
        if exchange.session is not None and exchange.session != current:
            current = exchange.session
            name = names.get(current)
            text = messages.LOG_CONVERSATION_HEADER.format(
                session=current, name=f" «{one_line(name)}»" if name else "") + "\n" + text
        shown.append(text)
    return shown


def _read(path: Path, limit: int, words: Sequence[str],
          collection: str | None) -> tuple[list[LoggedExchange], dict[int, str]]:
    """The exchanges asked for, and the names of their conversations that have one."""
    log = ExchangeLog(path, read_only=True)  # a read-only or full disk reads it too
    try:
        if collection is None:
            exchanges = log.recent(limit or None, words=words)
        else:  # the folder's own rows and those of the collections it is one folder of
            exchanges = [e for e in log.recent(None, words=words)
                         if logged_under(e.collection, collection)]
            exchanges = exchanges[-limit:] if limit else exchanges
        names = {}
        for number in {e.session for e in exchanges if e.session is not None}:
            summary = log.session_summary(number)
            if summary is not None and summary.name:
                names[number] = summary.name
        return exchanges, names
    finally:
        log.close()


def as_json(exchange: LoggedExchange) -> dict[str, Any]:
    return {
        "id": exchange.id,
        "session": exchange.session,  # the conversation's number, as /sessoes shows it
        "time": exchange.asked_at,
        "docs": exchange.collection,
        "model": exchange.model,
        "status": str(exchange.status),
        "question": exchange.question,
        "answer": exchange.answer,
        "sources": [{"source": s.source, "heading": s.heading, "chunk": s.chunk}
                    for s in exchange.sources],
    }


def _human(exchange: LoggedExchange) -> str:
    lines = [messages.LOG_ENTRY_HEADER.format(
        id=exchange.id, time=local_time(exchange.asked_at), docs=one_line(exchange.collection),
        model=one_line(exchange.model), status=messages.LOG_STATUS.get(exchange.status, ""))]
    lines.append(messages.LOG_QUESTION.format(text=_folded(exchange.question, 2)))
    answer = _folded(exchange.answer, ANSWER_LINES) if exchange.answer else messages.LOG_NO_ANSWER
    lines.append(messages.LOG_ANSWER.format(text=answer))
    if exchange.sources:
        cited = "; ".join(f"[{n}] {one_line(s.label)}"
                          for n, s in enumerate(exchange.sources, start=1))
        lines.append(messages.LOG_SOURCES.format(sources=cited))
    return "\n".join(lines)


def _folded(text: str, lines: int) -> str:
    """`text` on at most `lines` lines of the listing, continuation lines indented."""
    flat = " ".join(strip_controls(text).split())
    short = textwrap.shorten(flat, width=WIDTH * lines, placeholder=" …")
    return "\n     ".join(textwrap.wrap(short, width=WIDTH)[:lines])
