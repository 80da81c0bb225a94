"""Which file suffixes docai reads, and the parser for each (matched case-insensitively).

Each parser's module (and the library behind it: markdown-it-py, lxml, docutils, pypdfium2)
is imported the first time a file of its kind is parsed, not when docai starts: a search
over a saved index parses nothing, and its start-up time is what a user waits for.
Text formats get the decoded text; PDF, EPUB and notebooks get the file's bytes (`binary`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from docai.loading.parsed import DOUBLE_SUFFIXES, Origin, Parsed


@dataclass(frozen=True, slots=True)
class Format:
    """How one kind of file is parsed: from bytes (`binary`) or from decoded text."""

    binary: bool
    parse: Callable[[str | bytes, Origin], Parsed]


def _markdown(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.markdown import parse_markdown

    return Parsed(*parse_markdown(str(text), origin.stem))


def _mdx(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.mdx import parse_mdx

    return Parsed(*parse_mdx(str(text), origin.stem))


def _html(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.html import parse_html

    return Parsed(*parse_html(str(text), origin.stem))


def _text(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.text import parse_text

    return Parsed(*parse_text(str(text), origin.stem))


def _rest(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.rest import parse_rest

    return parse_rest(str(text), origin)


def _asciidoc(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.asciidoc import parse_asciidoc

    return parse_asciidoc(str(text), origin)


def _notebook(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.notebook import parse_notebook

    return parse_notebook(bytes(data) if isinstance(data, bytes) else data.encode(), origin)


def _pdf(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.pdf import parse_pdf

    return parse_pdf(data if isinstance(data, bytes) else data.encode(), origin)


def _epub(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.epub import parse_epub

    return parse_epub(data if isinstance(data, bytes) else data.encode(), origin)


_TEXT = False
_BINARY = True
FORMATS: MappingProxyType[str, Format] = MappingProxyType(
    {
        ".md": Format(_TEXT, _markdown),
        ".markdown": Format(_TEXT, _markdown),
        ".mdx": Format(_TEXT, _mdx),
        ".html": Format(_TEXT, _html),
        ".htm": Format(_TEXT, _html),
        ".xhtml": Format(_TEXT, _html),
        ".txt": Format(_TEXT, _text),
        ".rst": Format(_TEXT, _rest),
        ".rest": Format(_TEXT, _rest),
        ".rst.txt": Format(_TEXT, _rest),
        ".rest.txt": Format(_TEXT, _rest),
        ".adoc": Format(_TEXT, _asciidoc),
        ".asciidoc": Format(_TEXT, _asciidoc),
        ".ipynb": Format(_BINARY, _notebook),
        ".pdf": Format(_BINARY, _pdf),
        ".epub": Format(_BINARY, _epub),
    }
)
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(FORMATS)


def suffix_of(path: Path) -> str:
    """The format suffix of `path`, lower-cased: `.rst.txt` for Sphinx sources, else the last."""
    lowered = path.name.lower()
    for suffix in DOUBLE_SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) > len(suffix):
            return suffix
    return path.suffix.lower()


def format_for(path: Path) -> Format | None:
    """The format of `path` by suffix (`README.MD` is Markdown), or None if unsupported."""
    return FORMATS.get(suffix_of(path))
