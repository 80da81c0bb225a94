"""HTML -> (title, sections): the page's own prose, without scripts or navigation chrome.

Parsed by lxml (libxml2's HTML parser), which repairs malformed markup (unclosed tags, stray
end tags) the way browsers do, so a sloppy page still loads; entities come out decoded. The
tree is walked directly: building a BeautifulSoup tree on top of it took two thirds of an
index build. Text follows BeautifulSoup's rules, which docai used before (a `<pre>`'s text
leaves out comments and what sits inside script, style, template and ruby annotations), so
pages read exactly as they did.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from docai.loading.outline import Block, Heading, build_sections
from docai.records import Section

if TYPE_CHECKING:
    from lxml.etree import _Element  # type: ignore[import-untyped]

# Never prose: code, media, hidden templates, metadata.
_DROPPED_TAGS = frozenset(
    {"script", "style", "template", "noscript", "svg", "iframe", "nav", "head", "title",
     "meta", "link", "object", "embed", "canvas"}
)
# ARIA landmarks that mark site chrome rather than page content.
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search"})
# A header/footer inside one of these belongs to that content (e.g. an article's byline),
# outside them it is the site's banner or footer (the ARIA "banner"/"contentinfo" rule).
_SECTIONING = frozenset({"article", "main", "section", "aside", "nav"})
_ASIDE_OWNERS = frozenset({"article", "main", "section"})
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
# Text inside these is not the text of an enclosing `<pre>` or `<title>` (code, styles,
# templates, ruby annotations), as in BeautifulSoup's `get_text`.
_NOT_TEXT = frozenset({"script", "style", "template", "rt", "rp"})
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*>")
# Anything but blanks after an `</html>` end tag (see `_EventTree`).
_CONTENT_AFTER_HTML_END = re.compile(r"</html\b[^>]*>\s*\S", re.IGNORECASE)
# The only attributes the rules below read.
_READ_ATTRIBUTES = frozenset({"class", "id", "role", "hidden", "aria-hidden"})


# What Sphinx writes only in the pages it generates to navigate a site: its general and
# module indexes (`genindex.html`, `py-modindex.html`) and its search page.
_GENERATED_INDEX_MARKERS = ('class="indextable', 'class="genindex-jumpbox"')


def generated_index(text: str, stem: str) -> bool:
    """Whether a page is a generated index or search page: lists of every name and page
    of a site, which outrank the pages they point to for any question naming them."""
    return any(marker in text for marker in _GENERATED_INDEX_MARKERS) or (
        stem == "search" and 'id="search-results"' in text)


def parse_html(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    """Return the page title (`<title>`, else the first `<h1>`, else `stem`) and its sections.

    `<title>` wins over `<h1>` because it is the name the author gave the whole page; the
    `<h1>` still heads its own section. Content comes from `<main>` (or `role="main"`) when
    present, else from the outermost `<article>`s, else from `<body>`, so the site's
    navigation around the content does not leak into answers.
    """
    roots = _parse(text)
    collector = _Collector()
    content = _content_roots(roots)
    if content is None:  # no <body>: the whole page
        for root in roots:
            _walk_tag(root, collector, page=True)
    for element in content or ():
        _walk(element, collector, page=True)
    events = collector.finish()
    title = _head_title(roots) or _first_h1(events) or stem
    return title, build_sections(events, preamble_path=(title,))


def html_events(markup: str) -> list[Heading | Block]:
    """Headings and text blocks of an HTML fragment (an HTML block inside Markdown).

    Landmark rules (site header/footer) are not applied: in a fragment the author put
    those elements there on purpose. Scripts, styles and hidden elements are still dropped.
    """
    collector = _Collector()
    for root in _parse(markup):
        _walk_tag(root, collector, page=False)
    return collector.finish()


def _parse(markup: str) -> list[_Element]:
    """The page's top-level elements: one `<html>` (added by the parser if missing), none
    when the markup holds no element at all (only comments, or nothing)."""
    # Here, not at import: a warm `docai search` parses nothing.
    from lxml import etree  # type: ignore[import-untyped]

    # The XML declaration of XHTML pages carries nothing for us; lxml refuses text that
    # declares an encoding.
    markup = _XML_DECLARATION.sub("", markup) + "\n"
    # huge_tree: without it libxml2 drops what is nested deeper than 256 elements and text
    # nodes over 10 MB; a page that deep still ends as "too nested" (`load_file`).
    if _CONTENT_AFTER_HTML_END.search(markup):
        target = _EventTree(etree.Element)
        parser = etree.HTMLParser(recover=True, huge_tree=True, target=target)
        parser.feed(markup)
        roots: list[_Element] = parser.close()
        return roots
    parser = etree.HTMLParser(recover=True, huge_tree=True)
    parser.feed(markup)
    root: _Element | None = parser.close()
    return [] if root is None else [root]


class _EventTree:
    """Builds the page from the parser's events, for markup with content after `</html>`.

    libxml2 reports that content as a second `<html>`, which lxml's own tree drops; built
    from the events it stays, as it did when BeautifulSoup built the tree. Only the
    attributes docai reads are kept (others may not be valid XML names)."""

    def __init__(self, make_element: Callable[[str], _Element]) -> None:
        self._element = make_element
        self.roots: list[_Element] = []
        self.stack: list[tuple[str, _Element]] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        try:
            element = self._element(tag)
        except ValueError:  # not a valid XML name; no rule looks at such a tag
            element = self._element("unknown")
        for name in _READ_ATTRIBUTES.intersection(attrib):
            element.set(name, attrib[name])
        if self.stack:
            self.stack[-1][1].append(element)
        else:
            self.roots.append(element)
        self.stack.append((tag, element))

    def end(self, tag: str) -> None:
        names = [name for name, _ in self.stack]
        if tag in names:
            del self.stack[len(names) - 1 - names[::-1].index(tag):]

    def data(self, text: str) -> None:
        if not self.stack:
            self.start("unknown", {})  # text outside any element (never seen) still counts
            self.stack.pop()
            parent = self.roots[-1]
            parent.text = text
            return
        parent = self.stack[-1][1]
        if len(parent):
            parent[-1].tail = (parent[-1].tail or "") + text
        else:
            parent.text = (parent.text or "") + text

    def close(self) -> list[_Element]:
        return self.roots


def _content_roots(roots: list[_Element]) -> list[_Element] | None:
    """`<main>`, else the outermost `<article>`s, else `<body>`; None: walk the whole page."""
    main = _first(roots, "main")
    if main is None:
        main = next((e for r in roots for e in r.iter() if e.get("role") == "main"), None)
    if main is not None:
        return [main]
    articles = [
        a for root in roots for a in root.iter("article")
        if not any(p.tag == "article" for p in a.iterancestors())
    ]
    if articles:
        return articles
    body = _first(roots, "body")
    return None if body is None else [body]


def _first(roots: list[_Element], tag: str) -> _Element | None:
    """The first `tag` element in document order."""
    return next((e for root in roots for e in root.iter(tag)), None)


def _head_title(roots: list[_Element]) -> str:
    # Only the <head> title: an inline <svg> may carry its own <title> (an icon's name).
    head = _first(roots, "head")
    title = None if head is None else next(head.iter("title"), None)
    return "" if title is None else _collapse(_get_text(title))


def _first_h1(events: list[Heading | Block]) -> str:
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


def _walk(node: _Element, out: _Collector, *, page: bool) -> None:
    """The node's children in order: its text, each child element, each child's tail.

    Comments and processing instructions are skipped, but the text after them is not."""
    if node.text:
        out.text(node.text)
    for child in node:
        if isinstance(child.tag, str):
            _walk_tag(child, out, page=page)
        if child.tail:
            out.text(child.tail)


def _walk_tag(tag: _Element, out: _Collector, *, page: bool) -> None:
    name = tag.tag
    if _is_hidden(tag) or (page and _is_chrome(tag)):
        return
    if name in _HEADINGS:
        out.add(Heading(_HEADINGS[name], _inline_text(tag, page=page)))
    elif name == "pre":
        out.add(Block(_get_text(tag).strip("\n").rstrip()))
    elif name == "br":
        out.end_line()
    elif name == "tr":
        out.end_line()
        cells = [cell for cell in tag if cell.tag in _CELLS]
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


def _walk_list(tag: _Element, out: _Collector, *, page: bool) -> None:
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


def _inline_text(tag: _Element, *, page: bool) -> str:
    """The text of a heading or cell on one line, with the same dropping rules as the body."""
    inner = _Collector()
    _walk(tag, inner, page=page)
    return " ".join(event.text.replace("\n", " ") for event in inner.finish())


def _get_text(tag: _Element) -> str:
    """All the text under `tag`, as written (whitespace kept), hidden elements included."""
    pieces: list[str] = []
    excluded = any(a.tag in _NOT_TEXT for a in tag.iterancestors())
    _gather_text(tag, pieces, excluded=excluded)
    return "".join(pieces)


def _gather_text(node: _Element, pieces: list[str], *, excluded: bool) -> None:
    excluded = excluded or node.tag in _NOT_TEXT
    if node.text and not excluded:
        pieces.append(node.text)
    for child in node:
        if isinstance(child.tag, str):
            _gather_text(child, pieces, excluded=excluded)
        if child.tail and not excluded:
            pieces.append(child.tail)


def _classes(tag: _Element) -> list[str]:
    return (tag.get("class") or "").split()


def _is_hidden(tag: _Element) -> bool:
    return (
        tag.tag in _DROPPED_TAGS
        or tag.get("hidden") is not None
        or (tag.get("aria-hidden") or "").lower() == "true"
        or (tag.tag == "a" and _PERMALINK_CLASS in _classes(tag))
    )


def _is_chrome(tag: _Element) -> bool:
    roles = (tag.get("role") or "").lower().split()
    if any(role in _CHROME_ROLES for role in roles):
        return True
    name = tag.tag
    if name in ("header", "footer"):
        return not any(parent.tag in _SECTIONING for parent in tag.iterancestors())
    if name == "aside":
        return not any(parent.tag in _ASIDE_OWNERS for parent in tag.iterancestors())
    if name not in _CHROME_CONTAINERS:  # a section or heading may be titled "Sidebar"
        return False
    if (tag.get("id") or "") in _CHROME_IDS:
        return True
    return not _CHROME_CLASSES.isdisjoint(_classes(tag))
