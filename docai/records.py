"""The small immutable records that flow between pipeline stages."""

from __future__ import annotations

from dataclasses import dataclass

HEADING_SEPARATOR = " > "


def join_heading(heading_path: tuple[str, ...]) -> str:
    return HEADING_SEPARATOR.join(heading_path)


@dataclass(frozen=True, slots=True)
class Section:
    """A run of body text under one heading path (e.g. ("Install", "With pip"))."""

    heading_path: tuple[str, ...]
    text: str


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

    @property
    def heading(self) -> str:
        return join_heading(self.heading_path)


@dataclass(frozen=True, slots=True)
class Hit:
    chunk: Chunk
    score: float
