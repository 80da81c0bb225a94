"""Turn a flat run of headings and text blocks into sections with heading paths.

Markdown and HTML parsers both reduce a page to this one shape (Heading / Block events),
so the rules for heading paths live in one place and behave the same for every format.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from docai.records import Location, Section

BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading of `level` 1..6; deeper levels nest under the nearest shallower one."""

    level: int
    text: str
    location: Location | None = None


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph-like run of body text (lines inside it are kept as they are); `turns`:
    where inside `text` the location moves on (a long list's items, a code block's lines)."""

    text: str
    location: Location | None = None
    turns: tuple[tuple[int, Location], ...] = ()


def build_sections(
    events: Iterable[Heading | Block], *, preamble_path: tuple[str, ...]
) -> tuple[Section, ...]:
    """Group blocks under the heading path in force where they appear.

    Text before the first heading gets `preamble_path` (the parsers pass `(title,)`, so an
    intro paragraph still says which document it belongs to once it is a lone chunk).
    A heading that skips levels (h1 then h3) nests directly under the last shallower one.
    Headings with no body yield no section, yet stay in the path of their children.
    Empty headings are ignored: they would add a blank step to the path.
    A section's location is its heading's (where a reader sees the path it is cited by),
    else its first located block's; each later located block is a turn (`Section.turns`),
    so a chunk cut from the middle of a long section cites the line its own text starts on.
    """
    stack: list[Heading] = []
    path = preamble_path
    location: Location | None = None
    blocks: list[str] = []
    turns: list[tuple[int, Location]] = []
    sections: list[Section] = []
    length = 0

    def flush() -> None:
        if blocks:
            text = BLOCK_SEPARATOR.join(blocks)
            sections.append(Section(path, text, location, tuple(turns)))
            blocks.clear()
            turns.clear()

    for event in events:
        if isinstance(event, Heading):
            if not event.text:
                continue
            flush()
            while stack and stack[-1].level >= event.level:
                stack.pop()
            stack.append(event)
            path = tuple(h.text for h in stack)
            location = event.location
        elif text := event.text.strip("\n").rstrip():
            start = length + len(BLOCK_SEPARATOR) if blocks else 0
            if not blocks:
                if _far_below(event.location, location):  # a heading, then a long preamble
                    turns.append((0, event.location))  # type: ignore[arg-type]
                location = location or event.location
            elif event.location and event.location != (turns[-1][1] if turns else location):
                turns.append((start, event.location))
            lead = len(event.text) - len(event.text.lstrip("\n"))
            for offset, moved in event.turns:
                at = start + offset - lead
                if start < at < start + len(text) and moved != (turns[-1][1] if turns
                                                                 else location):
                    turns.append((at, moved))
            length = start + len(text)
            blocks.append(text)
    flush()
    return tuple(sections)


def _far_below(block: Location | None, heading: Location | None) -> bool:
    """Whether a section's first block starts more than a couple of lines below its
    heading (directives, targets, a module's synopsis between them)."""
    return (block is not None and heading is not None and block.unit == heading.unit
            and block.number - heading.number > 2)


def line_turns(text: str, location: Location | None) -> tuple[tuple[int, Location], ...]:
    """A block whose lines are the file's, one for one (a listing, a verbatim block): a
    turn at each line, so a passage cut inside it cites its own line."""
    if location is None:
        return ()
    turns = []
    offset = 0
    for number, line in enumerate(text.split("\n")):
        if number:
            turns.append((offset, Location("line", location.number + number)))
        offset += len(line) + 1
    return tuple(turns)
