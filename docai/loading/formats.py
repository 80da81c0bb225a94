"""Which file suffixes docai reads, and the parser for each (matched case-insensitively)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from docai.loading.html import parse_html
from docai.loading.markdown import parse_markdown
from docai.loading.text import parse_text
from docai.records import Section

Parser = Callable[[str, str], tuple[str, tuple[Section, ...]]]

PARSERS: MappingProxyType[str, Parser] = MappingProxyType(
    {
        ".md": parse_markdown,
        ".markdown": parse_markdown,
        ".html": parse_html,
        ".htm": parse_html,
        ".txt": parse_text,
    }
)
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(PARSERS)


def parser_for(path: Path) -> Parser | None:
    """The parser for `path` by suffix (`README.MD` is Markdown), or None if unsupported."""
    return PARSERS.get(path.suffix.lower())
