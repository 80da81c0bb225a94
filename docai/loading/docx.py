"""DOCX (Word) -> sections: the paragraphs of `word/document.xml`, under its headings.

Why not a library: python-docx would add a dependency to read what lxml (already one)
reads in a page, and the zip must be opened with docai's bomb limits anyway (`zipped`).
What is read: each paragraph's runs (text, tabs, line breaks) in document order; a
paragraph whose style is a heading ("heading N" or "Title" in `word/styles.xml`, whatever
the style's localised id, or an outline level) is a heading, which makes the heading
path; list paragraphs start with "- "; a table row is one line of its cells joined by
" | "; a text box is read where it sits. The title is `docProps/core.xml`'s, else the
first Title paragraph's, else the file name.
What is not: deleted revisions (`w:delText`), field codes, comments, footnotes, headers
and footers, images.
A DOCX has no lines, and its pages are laid out when Word shows it; but Word marks where
each page began when it last laid the document out (`w:lastRenderedPageBreak`), so a
passage is cited by the page it started on then (`relatorio.docx p. 3`), as the user saw
it; a file without those marks (written by a program, not Word) is paged by its explicit
page breaks when it has some, else cited by its heading path only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed
from docai.loading.zipped import local, xml_members
from docai.records import Location

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCUMENT = "word/document.xml"
_STYLES = "word/styles.xml"
_CORE = "docProps/core.xml"
_HEADING_NAME = re.compile(r"heading\s*([1-9])")
_TITLE_LEVEL = 1  # a Title paragraph heads the Heading 1s, as an HTML page's h1 would
_RUN_PARTS = {_W + "t": "", _W + "tab": "\t", _W + "br": "\n", _W + "cr": "\n"}


def parse_docx(data: bytes, origin: Origin) -> Parsed:
    members = xml_members(data, "DOCX", (_DOCUMENT, _STYLES, _CORE))
    levels = _heading_levels(members.get(_STYLES))
    events = list(_events(members[_DOCUMENT], levels))
    title = (_core_title(members.get(_CORE))
             or next((e.text for e in events if isinstance(e, Heading)
                      and e.level == _TITLE_LEVEL), "") or origin.stem)
    return Parsed(title, build_sections(events, preamble_path=(title,)))


def _heading_levels(styles: Any) -> dict[str, int]:
    """Heading level by paragraph style id: Word names its built-in styles in English in
    styles.xml ("heading 1") whatever language the id is in ("Ttulo1")."""
    levels: dict[str, int] = {}
    if styles is None:
        return levels
    for style in styles.iter(_W + "style"):
        style_id = style.get(_W + "styleId")
        name_element = style.find(_W + "name")
        name = (name_element.get(_W + "val") or "").lower() if name_element is not None else ""
        if style_id is None:
            continue
        if (found := _HEADING_NAME.fullmatch(name)) is not None:
            levels[style_id] = int(found.group(1)) + 1
        elif name == "title":
            levels[style_id] = _TITLE_LEVEL
        elif (outline := _outline_level(style)) is not None:
            levels[style_id] = outline
    return levels


def _outline_level(element: Any) -> int | None:
    """The heading level an `w:outlineLvl` under `element`'s properties gives (0 is a
    Heading 1), or None (9 is body text)."""
    found = element.find(f"{_W}pPr/{_W}outlineLvl")
    value = found.get(_W + "val") if found is not None else None
    if value is None or len(value) != 1 or value not in "012345678":
        return None
    return int(value) + 2


def _paragraph_level(paragraph: Any, levels: dict[str, int]) -> int | None:
    if (outline := _outline_level(paragraph)) is not None:
        return outline
    style = paragraph.find(f"{_W}pPr/{_W}pStyle")
    style_id = style.get(_W + "val") if style is not None else None
    if style_id is None:
        return None
    if style_id in levels:
        return levels[style_id]
    found = _HEADING_NAME.fullmatch(style_id.lower())  # no styles.xml: the id says it
    return int(found.group(1)) + 1 if found else None


def _events(document: Any, levels: dict[str, int]) -> Iterator[Heading | Block]:
    """Headings and blocks in document order, walked without recursion (a hostile file
    may nest tables as deep as the XML parser allows)."""
    from lxml import etree  # type: ignore[import-untyped]

    paragraphs: list[list[str]] = []  # the paragraphs open around the current element
    starts: list[Location | None] = []  # the page each open paragraph's text starts on
    cells: list[list[str]] = []  # the table cells open, each its paragraphs' text
    rows: list[list[str]] = []
    row_starts: list[Location | None] = []
    turns_page = _page_turn(document)
    page = 1
    for action, element in etree.iterwalk(document, events=("start", "end")):
        tag = element.tag
        if action == "start":
            if tag == _W + "p":
                paragraphs.append([])
                starts.append(None)
            elif turns_page is not None and turns_page(element):
                page += 1
            elif tag in _RUN_PARTS and paragraphs and local(element.getparent().tag) == "r":
                paragraphs[-1].append(element.text or _RUN_PARTS[tag])
                if starts[-1] is None and turns_page is not None and paragraphs[-1][-1].strip():
                    starts[-1] = Location("page", page)
            elif tag == _W + "tr":
                rows.append([])
                row_starts.append(Location("page", page) if turns_page is not None else None)
            elif tag == _W + "tc":
                cells.append([])
            continue
        if tag == _W + "p":
            text = "".join(paragraphs.pop()).strip()
            at = starts.pop()
            if not text:
                continue
            if cells:
                cells[-1].append(text)
                continue
            level = _paragraph_level(element, levels)
            if level is not None:
                yield Heading(level, " ".join(text.split()), at)
            elif element.find(f"{_W}pPr/{_W}numPr") is not None:
                yield Block("- " + text, at)
            else:
                yield Block(text, at)
        elif tag == _W + "tc" and cells:
            cell = " ".join(cells.pop())
            if rows:
                rows[-1].append(cell)
        elif tag == _W + "tr" and rows:
            row = " | ".join(cell for cell in rows.pop() if cell)
            at = row_starts.pop()
            if cells:  # a table inside a cell: its rows are that cell's text
                cells[-1].append(row)
            elif row:
                yield Block(row, at)


def _page_turn(document: Any) -> Callable[[Any], bool] | None:
    """What starts a new page: Word's marks of its last layout when the file has them,
    else explicit page breaks; None when it has neither (then nothing is paged)."""
    rendered = _W + "lastRenderedPageBreak"
    if next(document.iter(rendered), None) is not None:
        return lambda element: element.tag == rendered
    explicit = _W + "br"
    kind = _W + "type"
    if any(element.get(kind) == "page" for element in document.iter(explicit)):
        return lambda element: element.tag == explicit and element.get(kind) == "page"
    return None


def _core_title(core: Any) -> str:
    if core is None:
        return ""
    return next((" ".join(element.text.split()) for element in core.iter()
                 if local(element.tag) == "title" and (element.text or "").strip()), "")
