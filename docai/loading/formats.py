"""Which file suffixes docai reads, and the parser for each (matched case-insensitively)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from docai import chunking, loading
from docai.loading.html import parse_html
from docai.loading.markdown import parse_markdown
from docai.loading.text import parse_text
from docai.records import Section
from docai.text import tokens
from docai.versioning import code_version

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
# Bump whenever a parser's output for a given file changes: cached chunks are keyed on it,
# so every file is parsed again rather than kept as the old parser left it. A hash of every
# loading module, the chunker, the token counting it cuts by and the parsing libraries'
# versions is added anyway.
PARSER_VERSION = code_version(
    "5",
    modules=[loading, chunking, tokens],
    packages=["markdown-it-py", "beautifulsoup4", "lxml"],
)


def parser_for(path: Path) -> Parser | None:
    """The parser for `path` by suffix (`README.MD` is Markdown), or None if unsupported."""
    return PARSERS.get(path.suffix.lower())
