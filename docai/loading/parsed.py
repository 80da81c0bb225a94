"""What a parser is given (`Origin`) and what it returns (`Parsed`), for every format.

Text formats parse decoded text; PDF, EPUB and notebooks parse bytes. Either way a parser
may also need to know where the file lies (a reST include is read relative to it and only
inside the docs folder), and may have something to tell the user about a file it still
used (an include it refused): `notes`, shown as notices naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from docai.records import Section

# Suffixes made of two parts: Sphinx ships its sources as `page.rst.txt`.
DOUBLE_SUFFIXES = (".rst.txt", ".rest.txt")


@dataclass(frozen=True, slots=True)
class Origin:
    """The file being parsed: `path` inside the docs folder `root` (both as given)."""

    root: Path
    path: Path

    @property
    def stem(self) -> str:
        """The file name without its format's suffix (`index.rst.txt` -> `index`)."""
        name = self.path.name
        lowered = name.lower()
        for suffix in DOUBLE_SUFFIXES:
            if lowered.endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
        return self.path.stem


# A heading (or title) longer than this is cut at a word: every chunk repeats its heading
# path, so a hostile heading of 100k words would be stored once per chunk (gigabytes).
MAX_HEADING_CHARS = 300
MAX_HEADING_DEPTH = 12


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed file: its title, its sections, and pt-BR notes about parts left out (each
    once). Headings are bounded here, inside the parse's time limit, for every format."""

    title: str
    sections: tuple[Section, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", bounded_heading(self.title))
        object.__setattr__(self, "notes", tuple(dict.fromkeys(self.notes)))
        if any(len(section.heading_path) > MAX_HEADING_DEPTH
               or any(len(step) > MAX_HEADING_CHARS for step in section.heading_path)
               for section in self.sections):
            cut: dict[str, str] = {}
            object.__setattr__(self, "sections", tuple(
                replace(section, heading_path=tuple(
                    cut.setdefault(step, bounded_heading(step))
                    for step in section.heading_path[:MAX_HEADING_DEPTH]))
                for section in self.sections))


def bounded_heading(text: str) -> str:
    """`text`, or its first MAX_HEADING_CHARS characters cut at a word, with an ellipsis."""
    if len(text) <= MAX_HEADING_CHARS:
        return text
    head = text[:MAX_HEADING_CHARS]
    return (head.rsplit(None, 1)[0] if " " in head.strip() else head).rstrip() + "…"


class UnusableFile(Exception):
    """A file its parser cannot use, with the pt-BR reason the user is shown (a PDF with
    no text layer, a damaged EPUB): the file is skipped, the others go on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
