"""What the log keeps of an exchange, as small frozen records."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from docai.records import Location


class Status(StrEnum):
    """How an exchange ended; stored as its value."""

    ANSWERED = "answered"  # the model finished its answer
    INTERRUPTED = "interrupted"  # Ctrl-C stopped it: `answer` is what was shown until then
    FAILED = "failed"  # the model could not answer (server down, model missing, ...)
    NOT_COVERED = "not_covered"  # the docs do not cover it: the model was not asked


@dataclass(frozen=True, slots=True)
class LoggedSource:
    """A passage an answer cited: its file (relative to the docs folder) and heading path."""

    source: str
    heading: str = ""
    chunk: int | None = None  # its ordinal in the file, when it was a passage
    location: Location | None = None  # where in the file (line, page, cell), when known

    @property
    def label(self) -> str:
        """`file > heading`, as sources are cited after an answer."""
        return f"{self.source} > {self.heading}" if self.heading else self.source


@dataclass(frozen=True, slots=True)
class LoggedExchange:
    question: str
    answer: str
    status: Status
    model: str
    collection: str  # the docs folder's absolute path
    asked_at: str  # ISO 8601, UTC ("2026-12-02T13:40:12Z")
    sources: tuple[LoggedSource, ...] = ()
    id: int | None = None  # set once stored
    session: int | None = None


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One conversation of a docs folder, as `/sessoes` lists it."""

    id: int
    started_at: str
    exchanges: int
    last_at: str
    first_question: str
    name: str | None = None  # given with /sessoes nomear or docai log --rename
    collection: str = ""  # the docs folder (or shared collection) it was about
