"""Which file suffixes docai reads, and the parser for each (matched case-insensitively).

Each parser's module (and the library behind it: markdown-it-py, lxml, docutils, pypdfium2)
is imported the first time a file of its kind is parsed, not when docai starts: a search
over a saved index parses nothing, and its start-up time is what a user waits for.
Text formats get the decoded text; PDF, EPUB and notebooks get the file's bytes (`binary`).
Some kinds are known by a pattern, not one suffix: man pages (`.1` to `.9`, `.3pm`,
`.1ssl`), info manuals and their parts (`.info`, `.info-2`); README, NEWS, INSTALL...
files without a suffix, or with a packager's tag (`README.Debian`), are text; a `.gz` file
is read as the format of the name inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from docai import messages
from docai.loading.parsed import DOUBLE_SUFFIXES, Origin, Parsed, UnusableFile


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
    from docai.loading.html import generated_index, parse_html

    if generated_index(str(text), origin.stem):
        raise UnusableFile(messages.LOAD_SKIP_GENERATED_INDEX)
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


def _man(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.man import parse_man

    return parse_man(str(text), origin)


def _info(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.info import parse_info

    return parse_info(data if isinstance(data, bytes) else data.encode(), origin)


def _docx(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.docx import parse_docx

    return parse_docx(data if isinstance(data, bytes) else data.encode(), origin)


def _odt(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.odt import parse_odt

    return parse_odt(data if isinstance(data, bytes) else data.encode(), origin)


def _org(text: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.org import parse_org

    return parse_org(str(text), origin)


def _gz(data: str | bytes, origin: Origin) -> Parsed:
    from docai.loading.gz import parse_gz

    return parse_gz(data if isinstance(data, bytes) else data.encode(), origin, format_for)


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
        ".man": Format(_TEXT, _man),
        ".info": Format(_BINARY, _info),
        ".docx": Format(_BINARY, _docx),
        ".odt": Format(_BINARY, _odt),
        ".org": Format(_TEXT, _org),
        ".gz": Format(_BINARY, _gz),
        "readme": Format(_TEXT, _text),
    }
)
# Man page sections (`tar.1`, `perlfunc.3pm`, `openssl.1ssl`), info manuals' parts.
_MAN_SUFFIX = re.compile(r"\.[1-9][a-z]{0,6}")
_INFO_SUFFIX = re.compile(r"\.info(?:-[0-9]{1,3})?")
# Extensionless files read as text: what projects and Debian packages ship beside the code.
TEXT_NAMES = frozenset({"readme", "news", "install", "changelog", "changes", "authors",
                        "contributing", "history", "todo", "faq", "thanks", "bugs",
                        "hacking", "usage", "copying", "notice", "copyright", "license",
                        "licence", "credits", "maintainers"})
# The tags packagers add to those names (Debian's `README.Debian`, `changelog.Debian.gz`,
# `changelog.Debian.amd64.gz`, `README.source`): still the same kind of text file.
TEXT_NAME_TAGS = frozenset({"debian", "source", "upstream"})
# An extensionless name in capitals is, by the same convention, a text document
# (ANNOUNCE, RELEASE-NOTES, 00README, DCO); `Makefile` or `postinst` are not.
_SHOUTED_NAME = re.compile(r"[0-9]*[A-Z][A-Z0-9_-]{2,}")


class _Suffixes(frozenset[str]):
    """The last suffixes (as the walk sees a name: `.md`, `.1`, `.info-2`, `.gz`) of the
    files docai reads: FORMATS' keys, and the suffixes known by pattern (man sections,
    info parts), which no finite set lists."""

    def __contains__(self, suffix: object) -> bool:
        return isinstance(suffix, str) and (
            frozenset.__contains__(self, suffix) or suffix_of_name("x" + suffix) in FORMATS
            and suffix.startswith(".") and suffix != ".")


SUPPORTED_SUFFIXES: frozenset[str] = _Suffixes(key for key in FORMATS if key.startswith("."))


def suffix_of(path: Path) -> str:
    """The format key of `path` (see `suffix_of_name`)."""
    return suffix_of_name(path.name)


def suffix_of_name(name: str) -> str:
    """The format key of a file name, lower-cased: `.rst.txt` for Sphinx sources, `.man`
    for a man page (`tar.1`), `.info` for an info manual or part (`find.info-2`),
    `readme` for a README-like name without a suffix (or in capitals) or with a
    packager's tag (`README.Debian`, `changelog.Debian.amd64`), "" for any other
    extensionless name, else the last suffix (what the walk counts, so nothing is built
    per entry)."""
    lowered = name.lower()
    for suffix in DOUBLE_SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) > len(suffix):
            return suffix
    dot = lowered.rfind(".")
    if dot <= 0 or dot == len(lowered) - 1:
        return "readme" if lowered in TEXT_NAMES or _SHOUTED_NAME.fullmatch(name) else ""
    suffix = lowered[dot:]
    if _MAN_SUFFIX.fullmatch(suffix):
        return ".man"
    if _INFO_SUFFIX.fullmatch(suffix):
        return ".info"
    if suffix not in FORMATS:
        parts = lowered.split(".", 2)
        if parts[0] in TEXT_NAMES and parts[1] in TEXT_NAME_TAGS:
            return "readme"
    return suffix


def readable_name(name: str) -> bool:
    """Whether docai reads a file of this name (by `suffix_of_name`)."""
    return suffix_of_name(name) in FORMATS


def parsed_as(path: Path) -> str:
    """The format key the content of `path` is parsed as: a `.gz` file's is its inner
    name's (`manual.pdf.gz` is parsed as a PDF), any other file's its own."""
    key = suffix_of(path)
    if key == ".gz" and len(path.name) > len(".gz"):
        return suffix_of_name(path.name[: -len(".gz")])
    return key


def format_for(path: Path) -> Format | None:
    """The format of `path` by suffix (`README.MD` is Markdown), or None if unsupported."""
    return FORMATS.get(suffix_of(path))
