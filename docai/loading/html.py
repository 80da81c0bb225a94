"""HTML -> (title, sections): the page's own prose, without scripts or navigation chrome.

Parsed with BeautifulSoup + lxml, which repairs malformed markup (unclosed tags, stray
end tags) the way browsers do, so a sloppy page still loads. Entities come out decoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString

from docai.loading.outline import Block, Heading, build_sections
from docai.records import Section

# Never prose: code, media, hidden templates, metadata.
_DROPPED_TAGS = frozenset(
    {"script", "style", "template", "noscript", "svg", "iframe", "nav", "head", "title",
     "meta", "link", "object", "embed", "canvas"}
)
# ARIA landmarks that mark site chrome rather than page content.
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search"})
# A header/footer inside one of these belongs to that content (e.g. an article's byline),
# outside them it is the site's banner or footer (the ARIA "banner"/"contentinfo" rule).
_SECTIONING = ("article", "main", "section", "aside", "nav")
# The "¶" permalink Sphinx and Python-Markdown (MkDocs) put after every heading: not part of
# the heading, which a citation shows ("Installation > From Source", not "Installation¶").
_PERMALINK_CLASS = "headerlink"
# Site chrome that generators mark by class or id rather than by element or ARIA role:
# a Sphinx table of contents ("toctree": other pages' titles, matching almost any question),
# Sphinx's "previous | next | index" bar, sidebar and "[source]" links, DocBook's (the
# PostgreSQL manual's) "Prev | Up | Home | Next" tables, the YUI header and footer of
# Django's theme, an element with id "sidebar", and the footer of AsciiDoc pages (git's
# manual: "Last updated ...").
_CHROME_CLASSES = frozenset({
    "toctree-wrapper", "related", "sphinxsidebar", "viewcode-link", "navheader",
    "navfooter", "nav",
})
_CHROME_IDS = frozenset({"hd", "ft", "footer", "sidebar"})
# Only these elements are judged by class or id: generators build ids of sections and
# headings from their titles, so a section titled "Footer" is content.
_CHROME_CONTAINERS = frozenset({"div", "table", "span", "a", "ul"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_PARAGRAPH_TAGS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote",
     "dl", "figure", "figcaption", "form", "fieldset", "address", "details", "summary", "hr",
     "table", "body", "html", "center"}
)
_LINE_TAGS = frozenset({"dt", "dd", "caption", "legend", "option"})
_LIST_TAGS = frozenset({"ul", "ol", "menu"})
_CELLS = frozenset({"td", "th"})
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*>")


def parse_html(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    """Return the page title (`<title>`, else the first `<h1>`, else `stem`) and its sections.

    `<title>` wins over `<h1>` because it is the name the author gave the whole page; the
    `<h1>` still heads its own section. Content comes from `<main>` (or `role="main"`) when
    present, else from the outermost `<article>`s, else from `<body>`, so the site's
    navigation around the content does not leak into answers.
    """
    soup = _soup(text)
    collector = _Collector()
    for root in _content_roots(soup):
        _walk(root, collector, page=True)
    events = collector.finish()
    title = _page_title(soup, events) or stem
    return title, build_sections(events, preamble_path=(title,))


def html_events(markup: str) -> list[Heading | Block]:
    """Headings and text blocks of an HTML fragment (an HTML block inside Markdown).

    Landmark rules (site header/footer) are not applied: in a fragment the author put
    those elements there on purpose. Scripts, styles and hidden elements are still dropped.
    """
    collector = _Collector()
    _walk(_soup(markup), collector, page=False)
    return collector.finish()


def _soup(markup: str) -> BeautifulSoup:
    # The XML declaration of XHTML pages carries nothing for us and makes bs4 warn; the
    # trailing newline stops bs4 from warning that short markup "looks like a filename".
    return BeautifulSoup(_XML_DECLARATION.sub("", markup) + "\n", "lxml")


def _content_roots(soup: BeautifulSoup) -> list[Tag | BeautifulSoup]:
    main = soup.find("main") or soup.find(role="main")
    if isinstance(main, Tag):
        return [main]
    articles = [a for a in soup.find_all("article") if a.find_parent("article") is None]
    if articles:
        return articles
    return [soup.body or soup]


def _page_title(soup: BeautifulSoup, events: list[Heading | Block]) -> str:
    # Only the <head> title: an inline <svg> may carry its own <title> (an icon's name).
    head_title = soup.head.find("title") if soup.head is not None else None
    if head_title is not None and (title := _collapse(head_title.get_text())):
        return title
    return next((e.text for e in events if isinstance(e, Heading) and e.level == 1), "")


def _collapse(text: str) -> str:
    """Collapse runs of whitespace (including non-breaking spaces) to one space."""
    return " ".join(text.split())


@dataclass(slots=True)
class _Collector:
    """Accumulates inline text into lines, lines into blocks, blocks into events (local only).

    `marker` ("- ") waits for the first non-empty line of a list item, so `<li><p>x</p></li>`
    still reads "- x"; `indent` nests the lines of inner lists.
    """

    events: list[Heading | Block] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    list_depth: int = 0
    indent: str = ""
    marker: str = ""

    def text(self, piece: str) -> None:
        self.pieces.append(piece)

    def end_line(self) -> None:
        if line := _collapse("".join(self.pieces)):
            self.lines.append(self.indent + self.marker + line)
            self.marker = ""
        self.pieces.clear()

    def end_block(self) -> None:
        self.end_line()
        if self.lines:
            self.events.append(Block("\n".join(self.lines)))
        self.lines.clear()

    def add(self, event: Heading | Block) -> None:
        self.end_block()
        self.events.append(event)

    def finish(self) -> list[Heading | Block]:
        self.end_block()
        return self.events


def _walk(node: Tag | BeautifulSoup, out: _Collector, *, page: bool) -> None:
    for child in node.children:
        if isinstance(child, Tag):
            _walk_tag(child, out, page=page)
        elif isinstance(child, NavigableString) and not isinstance(child, PreformattedString):
            out.text(str(child))  # comments, doctypes and CDATA are PreformattedStrings


def _walk_tag(tag: Tag, out: _Collector, *, page: bool) -> None:
    name = tag.name
    if _is_hidden(tag) or (page and _is_chrome(tag)):
        return
    if name in _HEADINGS:
        out.add(Heading(_HEADINGS[name], _inline_text(tag, page=page)))
    elif name == "pre":
        out.add(Block(tag.get_text().strip("\n").rstrip()))
    elif name == "br":
        out.end_line()
    elif name == "tr":
        out.end_line()
        cells = [cell for cell in tag.children if isinstance(cell, Tag) and cell.name in _CELLS]
        texts = [_inline_text(cell, page=page) for cell in cells]
        out.text(" | ".join(texts) if any(texts) else "")
        out.end_line()
    elif name == "li":
        out.end_line()
        outer_indent, out.indent = out.indent, "  " * max(out.list_depth - 1, 0)
        out.marker = "- "
        _walk(tag, out, page=page)
        out.end_line()
        out.indent, out.marker = outer_indent, ""
    elif name in _LIST_TAGS:
        _walk_list(tag, out, page=page)
    elif name in _PARAGRAPH_TAGS and not out.list_depth:
        out.end_block()
        _walk(tag, out, page=page)
        out.end_block()
    elif name in _LINE_TAGS or name in _PARAGRAPH_TAGS:  # paragraphs inside a list item
        out.end_line()
        _walk(tag, out, page=page)
        out.end_line()
    else:
        _walk(tag, out, page=page)


def _walk_list(tag: Tag, out: _Collector, *, page: bool) -> None:
    """A top-level list is one block; a nested list continues its parent's block, indented."""
    nested = out.list_depth > 0
    if nested:
        out.end_line()
    else:
        out.end_block()
    out.list_depth += 1
    _walk(tag, out, page=page)
    out.list_depth -= 1
    if nested:
        out.end_line()
    else:
        out.end_block()


def _inline_text(tag: Tag, *, page: bool) -> str:
    """The text of a heading or cell on one line, with the same dropping rules as the body."""
    inner = _Collector()
    _walk(tag, inner, page=page)
    return " ".join(event.text.replace("\n", " ") for event in inner.finish())


def _is_hidden(tag: Tag) -> bool:
    return (
        tag.name in _DROPPED_TAGS
        or tag.has_attr("hidden")
        or str(tag.get("aria-hidden", "")).lower() == "true"
        or (tag.name == "a" and _PERMALINK_CLASS in tag.get_attribute_list("class"))
    )


def _is_chrome(tag: Tag) -> bool:
    roles = str(tag.get("role", "")).lower().split()
    if any(role in _CHROME_ROLES for role in roles):
        return True
    if tag.name in ("header", "footer"):
        return tag.find_parent(_SECTIONING) is None
    if tag.name == "aside":
        return tag.find_parent(("article", "main", "section")) is None
    if tag.name not in _CHROME_CONTAINERS:  # a section or heading may be titled "Sidebar"
        return False
    if str(tag.get("id", "")) in _CHROME_IDS:
        return True
    return not _CHROME_CLASSES.isdisjoint(tag.get_attribute_list("class"))
