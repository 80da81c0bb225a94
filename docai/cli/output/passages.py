"""Passages and sources as the terminal shows them: a citation label, a short snippet, a
quote. Their own module so `docai search` can show passages without the answer renderer."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from docai import messages
from docai.cli.terminal_text import one_line, strip_controls
from docai.loading import display_name
from docai.records import Chunk, Hit, Location

SNIPPET_WIDTH = 96
SNIPPET_LINES = 2
QUOTE = "  │ "  # before each line of a passage shown in place of an answer


def source_label(hit: Hit, *, docs: Path | None = None) -> str:
    """`file:line > heading path` (`manual.pdf p. 47 > ...`), the way sources are cited
    after an answer, on one line. With `docs` (a colour terminal's), the file part is an
    OSC 8 hyperlink to the file, which terminals that know them open on a click."""
    chunk = hit.chunk
    source = located(display_name(chunk.source), chunk.location)
    if docs is not None:
        source = hyperlink(source, docs / chunk.source)
    return f"{source} > {one_line(chunk.heading)}" if chunk.heading else source


def located(source: str, location: Location | None) -> str:
    """`source` with where to look in it, when the format says."""
    if location is None:
        return source
    return messages.LOCATION_LABELS[location.unit].format(source=source, number=location.number)


def location_json(chunk: Chunk) -> dict[str, Any] | None:
    """A chunk's location as `search --json`, MCP and the log carry it (None when unknown)."""
    location = chunk.location
    return None if location is None else {"unit": location.unit, "number": location.number}


def hyperlink(text: str, target: Path) -> str:
    """`text` as an OSC 8 link to the file `target` (a terminal without them shows `text`)."""
    try:
        uri = target.absolute().as_uri()
    except ValueError:
        return text
    if any(ord(c) < 32 or ord(c) == 127 for c in uri):
        return text
    return f"\x1b]8;;{uri}\x1b\\{text}\x1b]8;;\x1b\\"


def snippet(text: str, lines: int = SNIPPET_LINES) -> list[str]:
    """The chunk's body (its heading line dropped), whitespace folded, in at most `lines`
    lines of `SNIPPET_WIDTH` characters."""
    body = " ".join(strip_controls(text.split("\n", 1)[-1]).split())
    short = textwrap.shorten(body, width=SNIPPET_WIDTH * lines, placeholder=" …")
    return textwrap.wrap(short, width=SNIPPET_WIDTH)[:lines]


def quoted(text: str) -> str:
    """A passage as a quote: every line indented behind a bar."""
    return "\n".join(QUOTE + line if line.strip() else QUOTE.rstrip() for line in text.split("\n"))


def coverage_label(hit: Hit) -> str:
    """How much of the question the passage covers, as the terminal shows it ("cobre 67%")."""
    if hit.coverage is None:
        return messages.HIT_COVERAGE_NONE
    return messages.HIT_COVERAGE.format(share=hit.coverage)


def coverage_json(hit: Hit) -> float | None:
    """The passage's coverage for JSON: four places are all a share of concepts can mean, and
    they read the same from the local index and from a shared store."""
    return None if hit.coverage is None else round(hit.coverage, 4)
