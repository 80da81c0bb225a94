"""Which file suffixes docai reads, and the parser for each (matched case-insensitively).

Each parser's module (and the library behind it: markdown-it-py, lxml) is imported the
first time a file of its kind is parsed, not when docai starts: a search over a saved
index parses nothing, and its start-up time is what a user waits for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from docai.records import Section

Parser = Callable[[str, str], tuple[str, tuple[Section, ...]]]


def _markdown(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    from docai.loading.markdown import parse_markdown

    return parse_markdown(text, stem)


def _html(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    from docai.loading.html import parse_html

    return parse_html(text, stem)


def _text(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    from docai.loading.text import parse_text

    return parse_text(text, stem)


PARSERS: MappingProxyType[str, Parser] = MappingProxyType(
    {
        ".md": _markdown,
        ".markdown": _markdown,
        ".html": _html,
        ".htm": _html,
        ".txt": _text,
    }
)
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(PARSERS)


def parser_for(path: Path) -> Parser | None:
    """The parser for `path` by suffix (`README.MD` is Markdown), or None if unsupported."""
    return PARSERS.get(path.suffix.lower())
