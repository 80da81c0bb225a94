"""reStructuredText (and Sphinx sources, `.rst.txt`) -> sections, from docutils' tree.

docutils parses the page (with Sphinx's directives as stand-ins, `rest_directives.py`);
the tree is then read as a reader sees the rendered page:
- section titles become the heading path, and each section's location is its title's line;
- Sphinx roles docutils does not know (`:func:`~pkg.name``, `:ref:`text <label>``,
  `:doc:`...) become the text Sphinx shows (`name`, `text`); unresolved references keep
  their words;
- every docutils error or info message is dropped (none of its text reaches a passage);
  a directive nobody registered keeps its body as text, without its options;
- comments, substitution definitions, targets, raw blocks and `contents` are dropped.
No file is read but the page and the includes `rest_directives` allows; docutils'
configuration files are never read (`_parser`), and its file insertion (`raw` `:file:`,
`csv-table` `:url:`) is off.
"""

from __future__ import annotations

import copy
import functools
import io
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes

from docai.loading.outline import Block, Heading, build_sections, line_turns
from docai.loading.parsed import Origin, Parsed
from docai.records import Location

# `:role:`text``, `:dom:role:`text``, `text`_ and `text`__: what docutils leaves as a
# "problematic" node when the role or the target is unknown.
_ROLE = re.compile(r"\A(?::(?P<role>[\w.+:-]+):)?`(?P<body>.*)`(?::[\w.+:-]+:)?_{0,2}\Z",
                   re.DOTALL)
_LABEL_SEPARATORS = re.compile(r"[-_]+")
_TITLED = re.compile(r"\A(?P<title>.+?)\s*<[^<>]+>\Z", re.DOTALL)
_BARE_REFERENCE = re.compile(r"\A(?P<body>[\w.-]+)_{1,2}\Z")
# An unknown directive's source, as docutils quotes it in its error message.
_DIRECTIVE_START = re.compile(r"\A\.\.\s+[\w:.+-]+::[^\n]*\n?")
_OPTION_LINE = re.compile(r"\A\s*:[\w-]+:")
_SKIPPED_NODES = (nodes.comment, nodes.substitution_definition, nodes.target, nodes.raw,
                  nodes.pending, nodes.Invisible)
_ADMONITION_TITLES = {name: name.capitalize() for name in (
    "attention", "caution", "danger", "error", "hint", "important", "note", "tip", "warning")}


@dataclass
class IncludeContext:
    """What the directives need per parse (carried in docutils' settings): the docs
    folder, the page's folder, the include depth, the notes left, the current module."""

    root: Path
    folder: Path
    depth: int = 0
    notes: list[str] = field(default_factory=list)
    includes: int = 0
    reading: list[Path] = field(default_factory=list)  # the includes being read, outermost first
    module: str = ""  # the Python module `.. module::`/`.. currentmodule::` last named
    objects: int = 0  # object descriptions being read (a nested one names no module)


# docutils' settings for every page: no error text, no file or raw insertion, no titles
# promoted out of the body, no syntax highlighting.
_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "input_encoding": "unicode",
    "line_length_limit": 100_000,
    "syntax_highlight": "none",
}


def parse_rest(text: str, origin: Origin) -> Parsed:
    """Title (the first top-level section title, else the file stem) and sections."""
    document, context = _page(text, origin)
    _resolve_roles(document)
    events = list(_events(document, level=0, source=str(origin.path.absolute())))
    first_title = next((e.text for e in events if isinstance(e, Heading)), None)
    title = first_title or origin.stem
    return Parsed(title, build_sections(events, preamble_path=(title,)), tuple(context.notes))


def plain_text(text: str) -> list[Block]:
    """reST written inside another format (MyST's `{eval-rst}`) as its text blocks, each
    located by its line in `text`; its includes are not read (no page to be relative to)."""
    nowhere = Path("/nonexistent-docai-root")
    document = _doctree(text, "<eval-rst>", IncludeContext(root=nowhere, folder=nowhere))
    _resolve_roles(document)
    return [event for event in _events(document, 0, "<eval-rst>")
            if isinstance(event, Block) and event.text.strip()]


def literal_texts(text: str, origin: Origin) -> list[str]:
    """Each literal block's text (code, console, doctests) as `parse_rest` puts it in a
    passage, for checks that tell what the page shows as written from prose
    (`scripts/eval_markup.py`); an unknown directive's source (read as prose) is not one."""
    found = _page(text, origin)[0].findall((nodes.literal_block, nodes.doctest_block))
    return [n.astext().rstrip() for n in found if not isinstance(n.parent, nodes.system_message)]


def _page(text: str, origin: Origin) -> tuple[nodes.document, IncludeContext]:
    context = IncludeContext(root=origin.root, folder=origin.path.parent,
                             reading=[origin.path.resolve()])
    return _doctree(text, str(origin.path.absolute()), context), context


def _doctree(text: str, source_path: str, context: IncludeContext) -> nodes.document:
    """docutils' tree of one page: its parser, then only the substitution transform
    (`|name|` becomes its text). `publish_doctree` would also build settings through
    docutils' option parser and run a dozen transforms (footnote numbers, docinfo, target
    resolution) that change nothing a passage shows: 17 % of the reST build, measured on
    the Policy and Flask sources, whose passages came out the same but for footnote
    numbers."""
    from docutils.transforms.references import Substitutions
    from docutils.utils import DependencyList, new_document

    from docai.loading import rest_directives

    rest_directives.register()

    parser, defaults = _parser()
    settings = copy.copy(defaults)
    settings.warning_stream = io.StringIO()
    settings.record_dependencies = DependencyList()  # the defaults' one would grow per page
    settings.docai_context = context
    document = new_document(source_path, settings)
    parser.parse(text, document)
    document.transformer.add_transforms([Substitutions])
    document.transformer.apply_transforms()
    return document


@functools.cache
def _parser() -> tuple[Any, Any]:
    """docutils' reST parser and default settings, built once per process (neither keeps
    anything of a page between parses; each parse gets its own copy of the settings).
    docutils' configuration files are never read: `get_default_settings` does not."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    for name, value in _SETTINGS.items():
        setattr(settings, name, value)
    return Parser(), settings


def _events(node: nodes.Element, level: int, source: str) -> Iterator[Heading | Block]:
    metadata = _file_metadata(node) if isinstance(node, nodes.document) else None
    for child in node.children:
        if child is metadata:
            continue
        if isinstance(child, nodes.section):
            title = next((c for c in child.children if isinstance(c, nodes.title)), None)
            text = " ".join(_inline(title).split()) if title is not None else ""
            yield Heading(min(level + 1, 6), text, _location(child, source, title=True))
            yield from _events(child, level + 1, source)
        elif isinstance(child, nodes.Element):
            yield from _blocks(child, source)


def _file_metadata(document: nodes.document) -> nodes.field_list | None:
    """A field list before anything else on the page (`:orphan:`, `:tocdepth: 2`): Sphinx
    reads it as the file's metadata and shows none of it."""
    for child in document.children:
        if isinstance(child, nodes.field_list):
            return child
        if not isinstance(child, _SKIPPED_NODES):
            return None
    return None


def _blocks(node: nodes.Element, source: str) -> Iterator[Block]:
    """The text blocks of one body element (recursing into containers)."""
    if isinstance(node, nodes.system_message):
        if (body := _unknown_directive_body(node)) is not None:
            yield Block(body, _location(node, source))
        return
    if isinstance(node, (*_SKIPPED_NODES, nodes.title)):
        return
    if isinstance(node, nodes.topic) and "contents" in node.get("classes", ()):
        return
    location = _location(node, source)
    if isinstance(node, (nodes.paragraph, nodes.rubric, nodes.caption, nodes.attribution)):
        text = _inline(node).strip()  # its line ends kept: a long one is cited line by line
        yield Block(text, location, line_turns(text, location))
    elif isinstance(node, (nodes.literal_block, nodes.doctest_block)):
        yield Block(node.astext().rstrip("\n"), location, line_turns(node.astext(), location))
    elif isinstance(node, nodes.line_block):
        yield Block("\n".join(_inline(line) for line in node.findall(nodes.line)), location)
    elif isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        text, item_turns = _list(node, source)
        yield Block(text, location, item_turns)
    elif isinstance(node, nodes.definition_list):
        yield from _definitions(node, source)
    elif isinstance(node, nodes.field_list):
        yield Block(_fields(node), location)
    elif isinstance(node, nodes.option_list):
        yield Block(" ".join(_plain(node).split()), location)
    elif isinstance(node, nodes.table):
        yield Block(*_table(node, source, location))
    elif isinstance(node, nodes.image):
        return
    else:
        if isinstance(node, nodes.Admonition):
            label = _ADMONITION_TITLES.get(node.tagname, "")
            if label:
                yield Block(label + ":", location)
        for child in node.children:
            if isinstance(child, nodes.title):
                yield Block(_inline(child).strip(), location)
            elif isinstance(child, nodes.Element):
                yield from _blocks(child, source)
            elif isinstance(child, nodes.Text) and child.strip():
                yield Block(str(child).strip(), location)


def _inline(node: nodes.Node) -> str:
    """Inline text as the rendered page shows it; unknown roles and references by their
    words (`_role_text`), footnote references and inline system messages dropped."""
    if isinstance(node, nodes.Text):
        return str(node)
    if isinstance(node, (nodes.system_message, nodes.footnote_reference,
                         nodes.citation_reference, nodes.substitution_definition)):
        return ""
    if isinstance(node, nodes.problematic):
        return _role_text(node.astext())
    if isinstance(node, nodes.Element):
        return "".join(_inline(child) for child in node.children)
    return ""


def _plain(node: nodes.Node) -> str:
    """`node.astext()` without docutils' messages (an option list's options and text)."""
    if isinstance(node, nodes.system_message):
        return ""
    if isinstance(node, nodes.Element):
        return node.child_text_separator.join(_plain(child) for child in node.children)
    return node.astext()


def _role_text(raw: str, labels: Mapping[str, str] | None = None) -> str:
    """`:func:`~pkg.mod.name`` -> `name`, `:ref:`Text <label>`` -> `Text`, `word`_ -> `word`;
    `:ref:`label`` -> the title of the section the label marks when the page has it, else
    the label's words, and `:doc:`/usage/cli`` -> `cli` (Sphinx shows the target's title)."""
    match = _ROLE.match(raw) or _BARE_REFERENCE.match(raw)
    if match is None:
        return raw
    body = match["body"]
    titled = _TITLED.match(body)
    if titled:
        return titled["title"]
    if body.startswith("~"):
        return body[1:].rsplit(".", 1)[-1]
    role = match.groupdict().get("role") or ""
    if role.endswith((":ref", ":doc", ":numref")) or role in ("ref", "doc", "numref"):
        label = body.strip()
        if labels and label.casefold() in labels:
            return labels[label.casefold()]
        path = label.strip("/").removesuffix("/index").removesuffix("index")
        return " ".join(_LABEL_SEPARATORS.split(path.rsplit("/", 1)[-1] or label)).strip()
    return body.lstrip("!")


def _labels(document: nodes.document) -> dict[str, str]:
    """`.. _label:` targets right before a section title: label -> that title. In reading
    order (a target written before a title ends the previous section in docutils' tree),
    each element visited once: a page of 20,000 sections stays linear."""
    labels: dict[str, str] = {}
    pending: list[str] = []
    for node in document.findall(nodes.Element):
        if isinstance(node, nodes.target):
            pending.extend(node.get("names", ()))
        elif isinstance(node, nodes.section):
            title = next((c for c in node.children if isinstance(c, nodes.title)), None)
            text = " ".join(_inline(title).split()) if title is not None else ""
            for name in (*pending, *node.get("names", ())):
                labels.setdefault(name.casefold(), text)
            pending = []
        elif isinstance(node, (nodes.Body, nodes.title)):
            pending = []
    return labels


def _resolve_roles(document: nodes.document) -> None:
    """Each unknown role or reference replaced by the text Sphinx shows for it."""
    labels = _labels(document)
    for node in list(document.findall(nodes.problematic)):
        if node.parent is not None:
            node.parent.replace(node, nodes.Text(_role_text(node.astext(), labels)))


def _unknown_directive_body(message: nodes.system_message) -> str | None:
    """An unregistered directive's body, without its first line and options; None for any
    other message (they hold docutils' own words, never the page's)."""
    quoted = [child for child in message.children if isinstance(child, nodes.literal_block)]
    if not quoted:
        return None
    raw = quoted[0].astext()
    start = _DIRECTIVE_START.match(raw)
    if start is None:
        return None
    lines = raw[start.end():].split("\n")
    while lines and _OPTION_LINE.match(lines[0]):
        lines.pop(0)
    body = "\n".join(line.strip() for line in lines).strip()
    return body or None


def _list(node: nodes.Element, source: str) -> tuple[str, tuple[tuple[int, Location], ...]]:
    """The list one item a line (nested lines indented); a turn at each item, and at each
    block and line inside one (a long item's later paragraphs cite their own line)."""
    lines: list[str] = []
    turns: list[tuple[int, Location]] = []  # (index in `lines`, place) until the end
    for number, item in enumerate(node.children, 1):
        start = len(lines)
        if isinstance(item, nodes.Element) and (where := _location(item, source)):
            turns.append((start, where))
        for block in (block for child in item.children if isinstance(child, nodes.Element)
                      for block in _blocks(child, source) if block.text):
            if block.location and len(lines) > start:
                turns.append((len(lines), block.location))
            turns.extend((len(lines) + block.text.count("\n", 0, at), place)
                         for at, place in block.turns)
            lines.extend(block.text.split("\n"))
        marker = f"{number}. " if isinstance(node, nodes.enumerated_list) else "- "
        first, *rest = lines[start:] or [""]
        lines[start:] = [marker + first, *("  " + line if line else line for line in rest)]
    offsets = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    return "\n".join(lines), tuple((offsets[line], place) for line, place in turns if line)


def _definitions(node: nodes.Element, source: str) -> Iterator[Block]:
    """Each term a block and each paragraph of its definition another, as Sphinx's HTML
    writes them (`<dt>`, then `<dd>` holding `<p>`s): a long list (Debian Policy's build
    options) then packs into chunks as its HTML page does, instead of one block the chunker
    can only cut at a line."""
    for item in node.children:
        if not isinstance(item, nodes.Element):
            continue
        terms = [" ".join(_inline(child).split()) for child in item.children
                 if isinstance(child, (nodes.term, nodes.classifier))]
        yield Block(" : ".join(terms), _location(item, source))
        for child in item.children:
            if isinstance(child, nodes.definition):
                for grand in child.children:
                    if isinstance(grand, nodes.Element):
                        yield from _blocks(grand, source)


def _fields(node: nodes.Element) -> str:
    """One line per field; its body's blocks as the page shows them (no docutils text)."""
    lines = []
    for item in node.findall(nodes.field):
        name = next((_inline(c) for c in item.children if isinstance(c, nodes.field_name)), "")
        body = " ".join(block.text for c in item.children if isinstance(c, nodes.field_body)
                        for grand in c.children if isinstance(grand, nodes.Element)
                        for block in _blocks(grand, ""))
        lines.append(f"{name}: {' '.join(body.split())}")
    return "\n".join(lines)


def _table(node: nodes.Element, source: str, location: Location | None
           ) -> tuple[str, Location | None, tuple[tuple[int, Location], ...]]:
    """One row a line, cells joined by ` | `, each row a turn at its first paragraph's line:
    a long table (pytest's 1,500 plugins) is cited row by row."""
    rows: list[str] = []
    turns: list[tuple[int, Location]] = []
    length = 0
    for row in node.findall(nodes.row):
        found = (_location(paragraph, source) for paragraph in row.findall(nodes.paragraph))
        where = next(filter(None, found), None)
        if where and rows:
            turns.append((length, where))
        location = location or where
        rows.append(" | ".join(" ".join(_inline(entry).split()) for entry in row.children
                               if isinstance(entry, nodes.entry)))
        length += len(rows[-1]) + 1
    return "\n".join(rows), location, tuple(turns)


def _location(node: nodes.Element, source: str, *, title: bool = False) -> Location | None:
    """The 1-based line `node` starts on in the page itself (None inside an include).

    docutils gives a section the line of its title's underline, hence `title`."""
    if node.source is not None and node.source != source:
        return None
    line = node.line
    if line is None:
        return None
    if title:
        line -= 1
    return Location("line", max(line, 1))
