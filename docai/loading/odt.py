"""ODT (OpenDocument text: LibreOffice, Google Docs' export) -> sections: the paragraphs of
`content.xml`, under its headings.

Why not a library: odfpy is GPL/Apache dual-licensed and heavier than what it would do
here; lxml (already a dependency) reads the XML, and the zip is opened with docai's bomb
limits (`zipped`).
What is read: headings (`text:h`, their outline level making the heading path),
paragraphs with their spans and links, white space collapsed as ODF says, spaces
(`text:s`), tabs and line breaks kept; list items
start with "- "; a table row is one line of its cells joined by " | "; a footnote's text
is a paragraph of its own, read where it is cited. The title is `meta.xml`'s, else the file
name's.
What is not: tracked deletions, comments (annotations), images, headers and footers
(they live in `styles.xml`). An ODT has no lines or pages of its own, so a passage is
cited by its heading path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed
from docai.loading.zipped import local, xml_members

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_CONTENT = "content.xml"
_META = "meta.xml"
# Parts whose text is not the document's: deleted revisions, comments, and the sequence
# declarations and indexes a writer regenerates (a table of contents repeats headings).
_SKIPPED = frozenset({_TEXT + "tracked-changes", _OFFICE + "annotation",
                      _TEXT + "sequence-decls", _TEXT + "table-of-content",
                      _TEXT + "alphabetical-index"})
_WHITE_RUN = re.compile(r"[ \t\r\n]+")
_MAX_SPACES = 100  # `text:s text:c` repeats a space; a hostile count is cut here
_MAX_LEVEL = 10


def parse_odt(data: bytes, origin: Origin) -> Parsed:
    members = xml_members(data, "ODT", (_CONTENT, _META))
    events = list(_events(members[_CONTENT]))
    title = _meta_title(members.get(_META)) or origin.stem
    return Parsed(title, build_sections(events, preamble_path=(title,)))


def _events(content: Any) -> Iterator[Heading | Block]:
    """Headings and blocks in document order, walked without recursion. Text is mixed
    content: an element's own text, then each child's tail after it ends."""
    from lxml import etree  # type: ignore[import-untyped]

    paragraphs: list[list[str]] = []
    cells: list[list[str]] = []
    rows: list[list[str]] = []
    walk = etree.iterwalk(content, events=("start", "end"))
    skipping = 0
    for action, element in walk:
        tag = element.tag
        if tag in _SKIPPED:
            if action == "start":
                walk.skip_subtree()
                skipping += 1
            else:
                skipping -= 1
                if paragraphs and element.tail:
                    paragraphs[-1].append(_collapsed(element.tail))
            continue
        if skipping:
            continue
        if action == "start":
            _start(element, tag, paragraphs, cells, rows)
            continue
        if tag in (_TEXT + "p", _TEXT + "h"):
            text = "".join(paragraphs.pop()).strip()
            if text and cells:
                cells[-1].append(text)
            elif text and tag == _TEXT + "h":
                yield Heading(_level(element), " ".join(text.split()))
            elif text:
                listed = local(element.getparent().tag) == "list-item"
                yield Block("- " + text if listed else text)
        elif tag == _TABLE + "table-cell" and cells:
            cell = " ".join(cells.pop())
            if rows:
                rows[-1].append(cell)
        elif tag == _TABLE + "table-row" and rows:
            row = " | ".join(cell for cell in rows.pop() if cell)
            if cells:
                cells[-1].append(row)
            elif row:
                yield Block(row)
        if paragraphs and element.tail:
            paragraphs[-1].append(_collapsed(element.tail))


def _start(element: Any, tag: str, paragraphs: list[list[str]], cells: list[list[str]],
           rows: list[list[str]]) -> None:
    if tag in (_TEXT + "p", _TEXT + "h"):
        paragraphs.append([_collapsed(element.text or "")])
    elif tag == _TABLE + "table-row":
        rows.append([])
    elif tag == _TABLE + "table-cell":
        cells.append([])
    elif paragraphs:
        if tag == _TEXT + "s":
            paragraphs[-1].append(" " * _number(element.get(_TEXT + "c"), _MAX_SPACES))
        elif tag == _TEXT + "tab":
            paragraphs[-1].append("\t")
        elif tag == _TEXT + "line-break":
            paragraphs[-1].append("\n")
        elif element.text:
            paragraphs[-1].append(_collapsed(element.text))


def _collapsed(text: str) -> str:
    """Text as ODF shows it: a run of spaces, tabs and line ends is one space (`text:s`,
    `text:tab` and `text:line-break` are what write them)."""
    return _WHITE_RUN.sub(" ", text)


def _level(heading: Any) -> int:
    return _number(heading.get(_TEXT + "outline-level"), _MAX_LEVEL)


def _number(value: str | None, most: int) -> int:
    """A count or level attribute (1 when absent or not a positive number), at most
    `most`: a hostile file may write a number of thousands of digits."""
    if value is None or not (value.isascii() and value.isdigit()):
        return 1
    return max(1, min(int(value[:4]), most))


def _meta_title(meta: Any) -> str:
    if meta is None:
        return ""
    return next((" ".join(element.text.split()) for element in meta.iter()
                 if local(element.tag) == "title" and (element.text or "").strip()), "")
