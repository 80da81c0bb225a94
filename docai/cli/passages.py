"""Passages and sources as the terminal shows them: a citation label, a short snippet, a
quote. Their own module so `docai search` can show passages without the answer renderer."""

from __future__ import annotations

import textwrap

from docai.cli.terminal_text import one_line, strip_controls
from docai.loading import display_name
from docai.records import Hit

SNIPPET_WIDTH = 96
SNIPPET_LINES = 2
QUOTE = "  │ "  # before each line of a passage shown in place of an answer


def source_label(hit: Hit) -> str:
    """`file > heading path`, the way sources are cited after an answer, on one line."""
    chunk = hit.chunk
    source = display_name(chunk.source)
    return f"{source} > {one_line(chunk.heading)}" if chunk.heading else source


def snippet(text: str, lines: int = SNIPPET_LINES) -> list[str]:
    """The chunk's body (its heading line dropped), whitespace folded, in at most `lines`
    lines of `SNIPPET_WIDTH` characters."""
    body = " ".join(strip_controls(text.split("\n", 1)[-1]).split())
    short = textwrap.shorten(body, width=SNIPPET_WIDTH * lines, placeholder=" …")
    return textwrap.wrap(short, width=SNIPPET_WIDTH)[:lines]


def quoted(text: str) -> str:
    """A passage as a quote: every line indented behind a bar."""
    return "\n".join(QUOTE + line if line.strip() else QUOTE.rstrip() for line in text.split("\n"))
