"""The small immutable records that flow between pipeline stages."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

HEADING_SEPARATOR = " > "


def join_heading(heading_path: tuple[str, ...]) -> str:
    return HEADING_SEPARATOR.join(heading_path)


# What a location counts, by format: a line of a text format (Markdown, reST, HTML,
# AsciiDoc...), a page of a PDF, a cell of a notebook. The order is the stored code - 1.
LOCATION_UNITS = ("line", "page", "cell")


@dataclass(frozen=True, slots=True)
class Location:
    """Where in its file a section (and so each chunk cut from it) starts, so a citation
    can say where to look: `unit` is one of LOCATION_UNITS, `number` counts from 1."""

    unit: str
    number: int

    def __post_init__(self) -> None:
        if self.unit not in LOCATION_UNITS or self.number < 1:
            raise ValueError(f"bad location: {self.unit} {self.number}")


@dataclass(frozen=True, slots=True)
class Section:
    """A run of body text under one heading path (e.g. ("Install", "With pip")), and
    where it starts in its file when the format says (None for plain text).

    `turns` are the places inside `text` where the location moves on, as (offset, location)
    in order: a PDF section running over a page break is one section (chunked as one run of
    text, as its HTML twin is) whose chunks still cite the page each one starts on.
    """

    heading_path: tuple[str, ...]
    text: str
    location: Location | None = None
    turns: tuple[tuple[int, Location], ...] = ()

    def location_at(self, offset: int) -> Location | None:
        """The location of the text at `offset` (a binary search: a notebook or PDF with
        no headings is one section with a turn per cell or page, and every chunk asks)."""
        passed = bisect_right(self.turns, offset, key=lambda turn: turn[0])
        return self.turns[passed - 1][1] if passed else self.location


@dataclass(frozen=True, slots=True)
class Document:
    """One loaded file. `source` is relative to the docs root, always with '/'."""

    source: str
    title: str
    sections: tuple[Section, ...]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that could not be used, and why (shown to the user once)."""

    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know about a file that was still used (e.g. decoded as cp1252)."""

    source: str
    message: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable passage. `text` starts with the heading path so it stands alone."""

    source: str
    heading_path: tuple[str, ...]
    ordinal: int
    text: str
    tokens: int
    location: Location | None = None

    @property
    def heading(self) -> str:
        return join_heading(self.heading_path)


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved passage. `score` orders the hits (a fusion of ranks, so its size means
    little); `coverage` is the share of the question's concepts this passage holds (0..1),
    the figure a person can compare across passages and questions. None for a whole file
    chosen as the fallback, which no ranking scored."""

    chunk: Chunk
    score: float
    coverage: float | None = None


Advance = Callable[[int], None]
Progress = Callable[[str, int, int], AbstractContextManager[Advance]]
"""Starts a progress display for a long job: `(label, total, already_done)` -> a context
yielding `advance(count)`. The core decides which jobs are long enough to show one; the
terminal layer decides what it looks like (or passes nothing, and no display is shown)."""


def progress_for(
    progress: Progress | None, label: str, total: int, *, minimum: int, done: int = 0
) -> AbstractContextManager[Advance]:
    """`progress`'s display for a job of `total` items; none for a job under `minimum`,
    where a display would be no more than a flicker."""
    if progress is None or total < minimum:
        return nullcontext(lambda count: None)
    return progress(label, total, done)
