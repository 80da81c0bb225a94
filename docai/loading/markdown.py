"""Markdown -> (title, sections), from markdown-it's syntax tree rather than regexes.

Working on the parsed tree means a `#` inside a code block is never a heading, a table
keeps its cells apart, and entities come out decoded, exactly as a renderer would see them.
"""

from __future__ import annotations

import re
import textwrap

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from docai.loading.frontmatter import split_front_matter
from docai.loading.html import html_events
from docai.loading.markdown_blocks import VERBATIM_FENCE, unfold_blocks, unfold_with_lines
from docai.loading.outline import Block, Heading, build_sections
from docai.loading.text import parse_text
from docai.records import Location, Section

_LIST_INDENT = "  "
# markdown-it's limit on nested blocks (its default, 20, is reached by a list ten levels
# deep, and everything after it is silently dropped). Each level is a few frames of
# recursion here, far below Python's limit.
MAX_NESTING = 100
# `a<br>b` must not read "ab"; a space (not a newline) keeps table rows on one line.
_LINE_BREAK_TAG = re.compile(r"<br\b", re.IGNORECASE)
# An HTML block whose opening tag asks for its content to be read as Markdown (the
# md_in_html extension MkDocs sites use: `<figure markdown>`, `<div markdown="1">`), and
# the tag that closes it. Nested ones are read as Markdown up to this depth, then as HTML.
_MARKDOWN_IN_HTML = re.compile(r"\A\s*<([A-Za-z][\w-]*)\b[^>]*\smarkdown\b[^>]*>", re.ASCII)
_MARKDOWN_IN_HTML_DEPTH = 8
# An attribute list right after a link or an image (Python-Markdown's attr_list:
# `![demo](x.gif){ loading=lazy }`, `[Docs](x){: .button }`): the page shows none of it.
_INLINE_ATTRIBUTES = re.compile(r"\A\{:?[ \t]*(?:[#.][^{}\n]*|[\w-]+=[^{}\n]*)\}")


def parse_markdown(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    """Return the title and the sections of a Markdown document.

    Title: front matter `title:` (what site generators show), else the first level-1
    heading (Markdown or an HTML `<h1>` block), else `stem`. The front matter itself is
    never body text. Text before the first heading gets the heading path `(title,)`.
    """
    front = split_front_matter(text)
    unfolded, origins = unfold_with_lines(front.body)
    tokens = markdown_parser().parse(unfolded)
    if any(token.level >= MAX_NESTING - 1 for token in tokens):
        # markdown-it stops at its nesting limit and drops everything after that point:
        # only a hostile file nests this deep, and its words are kept as plain text.
        _, sections = parse_text(front.body, front.title or stem)
        return front.title or stem, sections
    # Each block is cited by the file line it starts on: the rewritten text's lines map
    # back to the file's (a note's title to its marker line), after the front matter.
    first_line = text[: len(text) - len(front.body)].count("\n") + 1
    events = _events(tokens, tuple(first_line + origin for origin in origins))
    first_h1 = next((e.text for e in events if isinstance(e, Heading) and e.level == 1), None)
    title = front.title or first_h1 or stem
    return title, build_sections(events, preamble_path=(title,))


def parse_markdown_events(text: str, parser: MarkdownIt | None = None) -> list[Heading | Block]:
    """Headings and blocks of Markdown without front matter (a notebook's Markdown cell);
    hostile nesting comes back as one plain block. A caller with many small texts (a
    notebook's cells) passes one `markdown_parser()` for all: building it costs more than
    parsing a short cell."""
    tokens = (parser or markdown_parser()).parse(unfold_blocks(text))
    if any(token.level >= MAX_NESTING - 1 for token in tokens):
        return [Block(text)]
    return _events(tokens)


def code_texts(text: str) -> list[str]:
    """Each code block's text (fenced, indented, a MyST code directive) as `parse_markdown`
    puts it in a passage. The page shows these as written, so a check for raw markup
    (`scripts/eval_markup.py`) tells them from prose by the reader's own parse; the reST of
    a MyST `{eval-rst}` block, read already as prose, is not code."""
    tokens = markdown_parser().parse(unfold_blocks(split_front_matter(text).body))
    return [token.content.rstrip("\n") for token in tokens
            if token.type in ("fence", "code_block") and token.markup != VERBATIM_FENCE]


def markdown_parser() -> MarkdownIt:
    """A parser for one file's Markdown: built per file, since sharing one across files
    would be global state."""
    return MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")


def _events(tokens: list[Token], lines: tuple[int, ...] = (),
            depth: int = 0) -> list[Heading | Block]:
    """Headings and blocks; each located at its file line when `lines` (the file line of
    each parsed line) is given."""
    events: list[Heading | Block] = []
    for node in SyntaxTreeNode(tokens).children:
        location = None
        if lines and node.map and node.map[0] < len(lines):
            location = Location("line", lines[node.map[0]])
        if node.type == "heading":
            events.append(Heading(int(node.tag[1:]), _inline(node).strip(), location))
        elif node.type == "html_block":
            inner = _markdown_inside(node.content) if depth < _MARKDOWN_IN_HTML_DEPTH else None
            found = (html_events(node.content) if inner is None else
                     _events(markdown_parser().parse(inner), depth=depth + 1))
            events.extend(Block(event.text, location) if isinstance(event, Block)
                          else Heading(event.level, event.text, location)
                          for event in found)
        else:
            located = _located_lines(node, lines)
            turns: list[tuple[int, Location]] = []
            offset = 0
            for number, (line, where) in enumerate(located):
                if number and where is not None:
                    turns.append((offset, where))
                offset += len(line) + 1
            events.append(Block("\n".join(line for line, _ in located), location, tuple(turns)))
    return events


def _located_lines(node: SyntaxTreeNode,
                   lines: tuple[int, ...]) -> list[tuple[str, Location | None]]:
    """`_block(node)`'s lines, each with the file line it starts when that is known: a
    list's items and the blocks inside them, a code block's lines. A passage cut inside a
    long list or listing then cites the line its own text starts on, not the list's."""
    kind = node.type
    if kind in ("fence", "code_block"):
        first = node.map[0] + (kind == "fence") if node.map else None
        return [(line, _line_at(lines, first + number) if first is not None else None)
                for number, line in enumerate(node.content.rstrip("\n").split("\n"))]
    if kind not in ("bullet_list", "ordered_list"):
        return [(line, None) for line in _block(node).split("\n")]
    located: list[tuple[str, Location | None]] = []
    for item in node.children:
        marker = f"{item.info}. " if kind == "ordered_list" and item.info else "- "
        body: list[tuple[str, Location | None]] = []
        for child in item.children:
            child_lines = _located_lines(child, lines)
            if not any(line for line, _ in child_lines):
                continue
            if child_lines[0][1] is None and child.map:
                child_lines[0] = (child_lines[0][0], _line_at(lines, child.map[0]))
            body.extend(child_lines)
        (first_line, where), *rest = body or [("", None)]
        located.append((marker + first_line,
                        where or (_line_at(lines, item.map[0]) if item.map else None)))
        located.extend((_LIST_INDENT + line if line else line, at) for line, at in rest)
    return located


def _line_at(lines: tuple[int, ...], index: int) -> Location | None:
    return Location("line", lines[index]) if 0 <= index < len(lines) else None


def _block(node: SyntaxTreeNode) -> str:
    """Plain text of one block; line breaks inside code, lists and tables are kept."""
    kind = node.type
    if kind in ("fence", "code_block"):
        return node.content.rstrip("\n")
    if kind in ("paragraph", "heading"):
        return _inline(node).strip()
    if kind in ("bullet_list", "ordered_list"):
        return "\n".join(line for line, _ in _located_lines(node, ()))
    if kind == "table":
        return "\n".join(_row(tr) for tr in _descendants(node, "tr"))
    if kind == "html_block":
        return "\n\n".join(event.text for event in html_events(node.content))
    if kind == "hr":
        return ""
    return "\n\n".join(text for child in node.children if (text := _block(child)))


def _row(tr: SyntaxTreeNode) -> str:
    return " | ".join(_inline(cell).strip() for cell in tr.children)


def _descendants(node: SyntaxTreeNode, kind: str) -> list[SyntaxTreeNode]:
    found: list[SyntaxTreeNode] = []
    for child in node.children:
        found.extend([child] if child.type == kind else _descendants(child, kind))
    return found


def _inline(node: SyntaxTreeNode) -> str:
    """Text of inline content: code spans, link and image text kept, markup and raw tags not."""
    parts: list[str] = []
    after_link = False
    for child in node.children:
        kind = child.type
        if after_link and kind == "text":
            parts.append(_INLINE_ATTRIBUTES.sub("", child.content, count=1))
        elif kind == "softbreak":
            parts.append(" ")
        elif kind == "hardbreak":
            parts.append("\n")
        elif kind == "html_inline":
            parts.append(" " if _LINE_BREAK_TAG.match(child.content) else "")
        elif child.children:
            parts.append(_inline(child))
        else:
            parts.append(child.content)
        after_link = kind in ("link", "image")
    return "".join(parts)


def _markdown_inside(markup: str) -> str | None:
    """The content of an HTML block that asks to be read as Markdown, without its opening
    and closing tags; None for any other HTML block."""
    opening = _MARKDOWN_IN_HTML.match(markup)
    if opening is None:
        return None
    inner = markup[opening.end():]
    closing = re.compile(rf"</{re.escape(opening.group(1))}\s*>\s*\Z", re.IGNORECASE)
    return textwrap.dedent(closing.sub("", inner.rstrip()))
