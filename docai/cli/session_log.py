"""The link between a REPL run (or one `docai ask`) and the log of exchanges.

The log is a convenience, never a condition: when its file is damaged, locked by another
program or on a full disk, the user gets one warning naming the file and the fix, and the
session goes on without it (no further attempt, so no further pause). A session's row is
created with its first exchange, so a REPL opened and closed without a question leaves
nothing behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from docai import messages
from docai.answer.conversation import Conversation, Turn
from docai.answer.recording import TurnRecorder
from docai.cli.terminal_text import strip_controls
from docai.log import (
    ExchangeLog,
    LogError,
    LoggedExchange,
    LoggedSource,
    SessionSummary,
    Status,
    default_log_path,
    now_utc,
)
from docai.records import Chunk, Hit
from docai.redaction import redact_url
from docai.retrieval.search_index import SearchIndex
from docai.settings import Settings

FOLDERS_JOINED = " + "  # how the log names a collection of several folders
LAST_SESSION = 0
"""What `-c` resumes: the folder's last conversation (a logged one is numbered from 1)."""


class ShownAnswer(Protocol):
    """What the log needs of how an answer was shown (the terminal's printer, or
    `ask --json`'s collector): whether the model failed, and the fallback file if any."""

    @property
    def failed(self) -> bool: ...

    @property
    def fallback_source(self) -> str | None: ...


def collection_of(settings: Settings) -> str:
    """What the log knows a collection by: the docs folder's absolute path, or for a shared
    store its address (password hidden) and collection name."""
    if settings.store:
        return f"{redact_url(settings.store)} {settings.resolved_collection()}"
    if settings.docs_folders:  # several folders: named by them, not by docai's folder of links
        return FOLDERS_JOINED.join(str(folder) for folder in settings.docs_folders)
    return str(settings.docs_dir.expanduser().resolve())


def logged_under(collection: str, folder: str) -> bool:
    """Whether a log row's `collection` is `folder`'s, alone or as one of several folders."""
    return collection == folder or folder in collection.split(FOLDERS_JOINED)


class SessionLog:
    """Writes one session's exchanges; `warn` gets the one line said when the log fails."""

    def __init__(
        self, log: ExchangeLog | None, collection: str, warn: Callable[[str], None]
    ) -> None:
        self._log = log
        self.collection = collection
        self._warn = warn
        self.session: int | None = None  # created with the first exchange
        self._writable = log is not None  # False: a full or read-only disk, read only

    @classmethod
    def open(
        cls, settings: Settings, warn: Callable[[str], None], path: Path | None = None
    ) -> SessionLog | None:
        """The log `settings` ask for (None with `--no-log` or `log = false`)."""
        if not settings.log:
            return None
        session_log = cls(None, collection_of(settings), warn)
        path = path or default_log_path()
        try:
            session_log._log = ExchangeLog(path)
            session_log._writable = True
        except LogError as error:
            session_log._fail(error)
            if error.unwritable:  # intact but not writable: still listed and resumed
                with contextlib.suppress(LogError):
                    session_log._log = ExchangeLog(path, read_only=True)
        return session_log

    @property
    def available(self) -> bool:
        return self._log is not None

    @property
    def path(self) -> Path | None:
        return self._log.path if self._log is not None else None

    def close(self) -> None:
        if self._log is not None:
            self._log.close()

    def start_new(self) -> None:
        """The next exchange opens a new session (`/nova`)."""
        self.session = None

    def record(self, exchange: LoggedExchange) -> None:
        if self._log is None or not self._writable:
            return
        try:
            if self.session is None:
                self.session = self._log.start_session(self.collection)
            self._log.add(self.session, exchange)
        except LogError as error:
            self._fail(error)

    def sessions(self, limit: int) -> list[SessionSummary] | None:
        """This docs folder's last sessions, newest first (None when the log failed)."""
        if self._log is None:
            return None
        try:
            return self._log.sessions(self.collection, limit)
        except LogError as error:
            self._fail(error)
            return None

    def summary(self, session: int) -> SessionSummary | None:
        """Conversation `session` if it is this docs folder's (None otherwise, or on failure)."""
        if self._log is None:
            return None
        try:
            found = self._log.session_summary(session)
        except LogError as error:
            self._fail(error)
            return None
        return found if found is not None and found.collection == self.collection else None

    def to_resume(self, resume: int) -> SessionSummary | None:
        """The conversation `-c` (LAST_SESSION) or `-r N` names, if this folder has it."""
        if resume == LAST_SESSION:
            listed = self.sessions(1)
            return listed[0] if listed else None
        return self.summary(resume)

    def rename(self, session: int, name: str | None) -> bool:
        if self._log is None:
            return False
        try:
            return self._log.rename_session(session, name)
        except LogError as error:
            self._fail(error)
            return False

    def delete(self, session: int) -> bool:
        """Delete conversation `session`; a later question starts a new one if it was this."""
        if self._log is None:
            return False
        try:
            self._log.delete_sessions([session])
        except LogError as error:
            self._fail(error)
            return False
        if self.session == session:
            self.session = None
        return True

    def reopen(self, session: int) -> list[LoggedExchange] | None:
        """The exchanges of `session`, which later exchanges now continue."""
        if self._log is None:
            return None
        try:
            exchanges = self._log.session_exchanges(session)
        except LogError as error:
            self._fail(error)
            return None
        self.session = session
        return exchanges

    def _fail(self, error: LogError) -> None:
        """Said once; an unwritable log stays open for reading, any other is dropped."""
        if error.unwritable:
            self._writable = False
        else:
            self._log = None
        warning = (messages.LOG_WARNING_LOCKED if error.locked else
                   messages.LOG_WARNING_UNWRITABLE if error.unwritable else messages.LOG_WARNING)
        self._warn(warning.format(problem=strip_controls(str(error))))


def record_answer(
    log: SessionLog | None,
    recorder: TurnRecorder,
    printer: ShownAnswer,
    settings: Settings,
    *,
    interrupted: bool,
) -> None:
    """Log the answer `recorder` saw and `printer` showed (or its part before Ctrl-C)."""
    if log is None:
        return
    turn = recorder.turn()
    status = turn_status(turn, interrupted=interrupted, failed=printer.failed)
    log.record(logged_exchange(turn, shown=recorder.shown, status=status,
                               fallback_source=printer.fallback_source, settings=settings))


def logged_exchange(
    turn: Turn,
    *,
    shown: str,
    status: Status,
    fallback_source: str | None,
    settings: Settings,
) -> LoggedExchange:
    """An exchange as the log keeps it: `shown` is the text the user saw (all of it for a
    finished answer, the part before Ctrl-C for an interrupted one)."""
    sources = tuple(LoggedSource(hit.chunk.source, hit.chunk.heading, hit.chunk.ordinal,
                                 hit.chunk.location)
                    for hit in turn.sources)
    if not sources and fallback_source:
        sources = (LoggedSource(fallback_source),)
    return LoggedExchange(
        question=turn.question, answer=shown.strip(), status=status, model=settings.model,
        collection=collection_of(settings), asked_at=now_utc(), sources=sources)


def turn_status(turn: Turn, *, interrupted: bool, failed: bool) -> Status:
    if interrupted:
        return Status.INTERRUPTED
    if failed:
        return Status.FAILED
    return Status.ANSWERED if turn.answer else Status.NOT_COVERED


def conversation_from(exchanges: Sequence[LoggedExchange], index: SearchIndex) -> Conversation:
    """A logged session as the conversation the next question continues: the model is
    sent the finished answers (as when they were given) and the interrupted questions (as
    the session that was interrupted would), retrieval the questions. Sources are found
    again in today's index (local or shared); a passage that is gone is left out."""
    turns = []
    for exchange in exchanges:
        hits = tuple(Hit(chunk, 0.0) for source in exchange.sources
                     if (chunk := _chunk_of(index, source)) is not None)
        answer = exchange.answer if exchange.status == Status.ANSWERED else ""
        turns.append(Turn(exchange.question, answer, hits,
                          interrupted=exchange.status == Status.INTERRUPTED,
                          refused=exchange.status == Status.NOT_COVERED))
    return Conversation(tuple(turns))


def _chunk_of(index: SearchIndex, source: LoggedSource) -> Chunk | None:
    """The chunk `source` names, if today's index still has it under the same heading."""
    if source.chunk is None:
        return None
    chunk = index.chunks.chunk_at(source.source, source.chunk)
    return chunk if chunk is not None and chunk.heading == source.heading else None
