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
(they live in `styles.xml`).
An ODT has no lines, and its pages are laid out when it is shown; but LibreOffice marks
where its last layout turned a page (`text:soft-page-break`), and a paragraph style may
start a page (`fo:break-before="page"`), so a passage is cited by the page it started on
then (`guia.odt p. 3`); a file with neither is cited by its heading path only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed
from docai.loading.zipped import local, xml_members
from docai.records import Location

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
_CONTENT = "content.xml"
_META = "meta.xml"
_STYLES = "styles.xml"
_MAX_STYLE_CHAIN = 32  # parent styles followed at most (a hostile file may make a cycle)
# Parts whose text is not the document's: deleted revisions, comments, and the sequence
# declarations and indexes a writer regenerates (a table of contents repeats headings).
_SKIPPED = frozenset({_TEXT + "tracked-changes", _OFFICE + "annotation",
                      _TEXT + "sequence-decls", _TEXT + "table-of-content",
                      _TEXT + "alphabetical-index"})
_WHITE_RUN = re.compile(r"[ \t\r\n]+")
_MAX_SPACES = 100  # `text:s text:c` repeats a space; a hostile count is cut here
_MAX_LEVEL = 10


def parse_odt(data: bytes, origin: Origin) -> Parsed:
    members = xml_members(data, "ODT", (_CONTENT, _META, _STYLES))
    content = members[_CONTENT]
    events = list(_events(content, _page_breaking(content, members.get(_STYLES))))
    title = _meta_title(members.get(_META)) or origin.stem
    return Parsed(title, build_sections(events, preamble_path=(title,)))


def _events(content: Any, breaking: frozenset[str]) -> Iterator[Heading | Block]:
    """Headings and blocks in document order, walked without recursion. Text is mixed
    content: an element's own text, then each child's tail after it ends. `breaking`: the
    paragraph styles that start a page."""
    from lxml import etree  # type: ignore[import-untyped]

    paged = bool(breaking) or next(content.iter(_TEXT + "soft-page-break"), None) is not None
    page = 1
    said = False  # whether any text came yet (a first paragraph's break turns no page)
    starts: list[Location | None] = []
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
            if tag == _TEXT + "soft-page-break":
                page += 1
            elif tag in (_TEXT + "p", _TEXT + "h"):
                if said and element.get(_TEXT + "style-name") in breaking:
                    page += 1
                starts.append(Location("page", page) if paged else None)
            _start(element, tag, paragraphs, cells, rows)
            continue
        if tag in (_TEXT + "p", _TEXT + "h"):
            text = "".join(paragraphs.pop()).strip()
            at = starts.pop()
            said = said or bool(text)
            if text and cells:
                cells[-1].append(text)
            elif text and tag == _TEXT + "h":
                yield Heading(_level(element), " ".join(text.split()), at)
            elif text:
                listed = local(element.getparent().tag) == "list-item"
                yield Block("- " + text if listed else text, at)
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


def _page_breaking(content: Any, styles: Any) -> frozenset[str]:
    """The paragraph styles (automatic ones of content.xml, named ones of styles.xml) that
    start a new page, themselves or through a parent style."""
    family = _STYLE + "family"
    parents: dict[str, str] = {}
    breaks: set[str] = set()
    for root in (styles, content):
        if root is None:
            continue
        for style in root.iter(_STYLE + "style"):
            name = style.get(_STYLE + "name")
            if name is None or style.get(family) != "paragraph":
                continue
            if (parent := style.get(_STYLE + "parent-style-name")) is not None:
                parents[name] = parent
            properties = style.find(_STYLE + "paragraph-properties")
            if properties is not None and properties.get(_FO + "break-before") == "page":
                breaks.add(name)
    breaking = set()
    for name in parents.keys() | breaks:
        step: str | None = name
        for _ in range(_MAX_STYLE_CHAIN):
            if step is None:
                break
            if step in breaks:
                breaking.add(name)
                break
            step = parents.get(step)
    return frozenset(breaking)


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
