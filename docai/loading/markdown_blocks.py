"""MkDocs and MyST block extensions rewritten as plain CommonMark, before parsing.

MkDocs sites write notes as admonitions (`!!! note "Title"`, collapsible `??? tip`) and
alternatives as content tabs (`=== "pip"`), each with a body indented by four spaces; MyST
(Sphinx) sites write notes as directives in fences (```` ```{note} ````) or colon fences
(`:::{tip}`). CommonMark reads an indented body as a code block and a directive as code, so
the notes' prose would be indexed and shown as raw markup (links as `[text](url)`). Here
each block becomes its title on a line of its own followed by its body as ordinary
Markdown, and so is any other MyST directive's (tab sets and tabs, dropdowns, cards, list
tables): its argument a title line, its options dropped. MyST tables of contents
(`{toctree}`, `{contents}`) are navigation and are dropped, so are directives that show no
text (`{currentmodule}`, `{image}`, `{auto*}`, mkdocstrings' `::: package.module`). Code
(fenced, or a code directive such as `{code-block}`) is left as written, without the
directive's options.

Every pattern here is applied to one line at a time and none can backtrack over a run of
spaces, so a hostile line costs linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType

# `!!! note`, `!!! warning "Title"`, `??? tip`, `???+ info ""` (a type, then an optional
# title; "" means none) and `=== "Tab label"` (a title only); matched on the line with its
# trailing blanks removed.
_BLOCK = re.compile(
    r'(?P<indent>[ ]*)(?:(?:!!!|\?\?\?\+?)[ \t]*(?P<kind>[\w-]+)(?:[ \t]+[\w-]+)*|===\+?)'
    r'(?:[ \t]+"(?P<title>[^"]*)")?'
)
_BLOCK_MARKERS = ("!!!", "???", "===")
_FENCE = re.compile(r"(?P<indent>[ ]*)(?P<mark>`{3,}|~{3,}|:{3,})[ \t]*(?P<info>.*)")
_DIRECTIVE = re.compile(r"\{(?P<name>[\w:-]+)\}[ \t]*(?P<argument>.*)")
_DIRECTIVE_OPTION = re.compile(r"[ ]*:[\w-]+:")
_BODY_INDENT = 4
# A MyST role's name right before a code span ({doc}`usage`) and a MyST target line
# ("(labels)="): markup, not words.
_ROLE_AT_END = re.compile(r"\{[\w:-]+\}\Z")
_TICKS = re.compile(r"(`+)")
_TITLED_TARGET = re.compile(r"(?P<title>[^<>]*[^<>\s])\s*<[^<>]+>")
_TARGET = re.compile(r"[ ]*\([\w:.-]+\)=")
# An ATX heading, and the attribute list that may close it ("## 1.8.0 ## {: #hatch-v1.8.0 }",
# "# Title {#id}": Python-Markdown's attr_list, Pandoc's header attributes).
_ATX_HEADING = re.compile(r"[ ]{0,3}#{1,6}[ \t]")
_ATTRIBUTE_LIST = re.compile(r"\{:?[ \t]*[#.][^{}]*\}")
# Material for MkDocs icon shortcodes in tab and note titles (":octicons-file-code-16:").
_SHORTCODE = re.compile(r":[\w-]+:")
# pymdown-extensions' blocks: `/// note | Title`, `/// tab | pip`, `/// details | Summary`
# ... `///` (more slashes to nest), their options indented on the lines after the header.
_SLASH_BLOCK = re.compile(r"(?P<indent>[ ]*)(?P<mark>/{3,})[ \t]*(?P<kind>[\w-]+)"
                          r"(?:[ \t]*\|[ \t]*(?P<title>.*))?")
_SLASH_OPTION = re.compile(r"[ ]{2,}[\w-]+:(?:[ \t].*)?")
# A snippet line (`--8<-- "file.md"`), an attribute list on a line of its own
# (`{: .source-link }`), a footnote marker (`[^note]`, not its definition `[^note]:`).
_SNIPPET = re.compile(r"[ ]*;?--8<--.*")
# mkdocstrings' and mkdocs-click's API blocks (`::: package.module`, their options indented
# below): the page shows the code's docstrings, which only a build that imports it has.
_AUTODOC = re.compile(r"(?P<indent>[ ]*):::[ \t]+[\w.:-]+[ \t]*")
_OWN_LINE_ATTRIBUTES = re.compile(r"[ ]*\{:?[ \t]*[#.][^{}]*\}[ \t]*")
_FOOTNOTE_MARK = re.compile(r"\[\^[^\]\s]+\]:?")
VERBATIM_FENCE = "~" * 12  # a fence around text another reader has already read (not code)
# Deeper nesting is left as written: only hostile files nest notes this deep.
_MAX_DEPTH = 20

# MyST directives whose body is prose (Docutils' admonitions, Sphinx's version notes and
# rubrics), with the title each one shows when it has no argument of its own.
PROSE_DIRECTIVES: Mapping[str, str] = MappingProxyType({
    "admonition": "", "attention": "Attention", "caution": "Caution", "danger": "Danger",
    "error": "Error", "hint": "Hint", "important": "Important", "info": "Info", "note": "Note",
    "rubric": "", "seealso": "See also", "tip": "Tip", "todo": "To do", "warning": "Warning",
    "deprecated": "Deprecated since version", "versionadded": "Added in version",
    "versionchanged": "Changed in version", "versionremoved": "Removed in version",
})
NAVIGATION_DIRECTIVES = frozenset({"toctree", "contents", "include"})
# Directives that show nothing a passage could hold: build and domain settings, images, the
# index. Dropped with their arguments, as are `auto*` directives (API pages need the built
# HTML: the user's code is never imported).
HIDDEN_DIRECTIVES = frozenset({
    "currentmodule", "module", "highlight", "index", "image", "meta", "tabularcolumns",
    "default-domain", "py:currentmodule", "py:module",
})
# Directives whose body the page shows as written (code, output, a formula, a diagram's
# source): kept as a code fence, without their options.
CODE_DIRECTIVES = frozenset({
    "code", "code-block", "sourcecode", "code-cell", "literalinclude", "doctest", "testcode",
    "testoutput", "program-output", "command-output", "math", "mermaid", "graphviz", "raw",
    "parsed-literal", "csv-table", "prompt",
})


Line = tuple[str, int]  # a line of the rewritten text, and the file line it comes from


def unfold_blocks(text: str) -> str:
    """`text` with admonitions, content tabs and MyST prose directives as plain Markdown;
    MyST roles' names and targets and headings' attribute lists removed."""
    return unfold_with_lines(text)[0]


def unfold_with_lines(text: str) -> tuple[str, tuple[int, ...]]:
    """`unfold_blocks(text)`, and for each of its lines the line of `text` (from 0) it
    comes from: a note's title and the blank lines around it count as the note's line, so
    every block of the rewritten text is still cited by the line it is written on."""
    lines = list(_unfold([(line, number) for number, line in enumerate(text.split("\n"))], 0))
    return "\n".join(line for line, _ in lines), tuple(number for _, number in lines)


def _unfold(lines: list[Line], depth: int) -> Iterator[Line]:
    if depth > _MAX_DEPTH:
        yield from lines
        return
    position = 0
    while position < len(lines):
        line, number = _expanded_indent(lines[position][0]), lines[position][1]
        fence = _FENCE.fullmatch(line)
        if fence and (fence["mark"][0] != ":" or _DIRECTIVE.fullmatch(fence["info"])):
            end = _fence_end(lines, position, fence)
            yield from _fenced(lines[position:end], fence, depth)
            position = end
            continue
        slash = _SLASH_BLOCK.fullmatch(line.rstrip()) if line.lstrip().startswith("///") else None
        if slash:
            end = _slash_end(lines, position, slash["indent"] + slash["mark"])
            body = lines[position + 1:end]
            while body and _SLASH_OPTION.fullmatch(body[0][0]):
                body = body[1:]
            kind = slash["kind"].casefold()
            title = slash["title"] or ("" if kind in ("tab", "html") else kind.capitalize())
            yield from _titled(slash["indent"], title, number, _unfold(body, depth + 1))
            position = end + 1
            continue
        autodoc = _AUTODOC.fullmatch(line)
        if autodoc:
            position = _body_end(lines, position + 1, len(autodoc["indent"]) + 1)
            continue
        if _SNIPPET.fullmatch(line) or _OWN_LINE_ATTRIBUTES.fullmatch(line):
            position += 1
            continue
        block = _block(line)
        if block:
            indent = block["indent"]
            end = _body_end(lines, position + 1, len(indent) + _BODY_INDENT)
            title = block["kind"].capitalize() if block["title"] is None else block["title"]
            body = [(_dedented(text, len(indent)), at) for text, at in lines[position + 1:end]]
            yield from _titled(indent, title, number, _unfold(body, depth + 1))
            position = end
            continue
        if not _TARGET.fullmatch(line.rstrip()):
            shown = _without_heading_attributes(line) or _without_roles(line)
            yield (_FOOTNOTE_MARK.sub("", shown) if "[^" in shown else shown), number
        position += 1


def _slash_end(lines: list[Line], start: int, closing: str) -> int:
    """Index of a `///` block's closing line (the end of `lines` when it is unclosed)."""
    for position in range(start + 1, len(lines)):
        if _expanded_indent(lines[position][0]).rstrip() == closing:
            return position
    return len(lines)


def _block(line: str) -> re.Match[str] | None:
    if not line.lstrip(" ").startswith(_BLOCK_MARKERS):
        return None
    block = _BLOCK.fullmatch(line.rstrip())
    return block if block and (block["kind"] or block["title"] is not None) else None


def _fenced(lines: list[Line], fence: re.Match[str], depth: int) -> Iterator[Line]:
    """A fenced block: a prose directive unfolded, a table of contents dropped, code kept."""
    directive = _DIRECTIVE.fullmatch(fence["info"])
    name = directive["name"].casefold() if directive else ""
    if name in NAVIGATION_DIRECTIVES:
        return
    if name == "eval-rst":
        yield from _eval_rst(lines, fence)
        return
    if directive is None:
        yield from lines
        return
    if name in HIDDEN_DIRECTIVES or name.startswith("auto"):
        return
    closed = len(lines) > 1 and _closes(lines[-1][0], fence)
    body = _without_options(lines[1:-1] if closed else lines[1:])
    if name in CODE_DIRECTIVES:
        yield from _code(fence, lines[0][1], body, lines[-1][1])
        return
    # Any other directive (a note, a tab set and its tabs, a dropdown, a card, a glossary,
    # a list table, a figure's caption): MyST parses its body as Markdown, and its
    # argument is the title the page shows above it.
    argument = directive["argument"].strip()
    title = " ".join(part for part in (PROSE_DIRECTIVES.get(name, ""), argument) if part)
    yield from _titled(fence["indent"], title, lines[0][1], _unfold(body, depth + 1))


def _eval_rst(lines: list[Line], fence: re.Match[str]) -> Iterator[Line]:
    """MyST's way to write reST, read as the reST reader reads it: each of its blocks
    verbatim (read already, not Markdown), each line cited by the file line the reST reader
    places it on."""
    from docai.loading.rest import plain_text

    closed = len(lines) > 1 and _closes(lines[-1][0], fence)
    source = "\n".join(line for line, _ in (lines[1:-1] if closed else lines[1:]))
    last = len(lines) - 1
    for block in plain_text(source):
        line = block.location.number if block.location else 1  # of `source`: lines[line]
        turns = list(block.turns)
        located: list[Line] = []
        offset = 0
        for text in block.text.split("\n"):
            while turns and turns[0][0] <= offset:
                line = turns.pop(0)[1].number
            located.append((text, lines[min(max(line, 1), last)][1]))
            offset += len(text) + 1
        yield (VERBATIM_FENCE, located[0][1])
        yield from located
        yield from ((VERBATIM_FENCE, located[-1][1]), ("", located[-1][1]))


def _code(fence: re.Match[str], number: int, body: list[Line], last: int) -> Iterator[Line]:
    """A code directive as a plain code fence (backticks or tildes, as long as its own so
    nothing inside closes it early): its body as written, its options gone."""
    mark = fence["mark"] if fence["mark"][0] != ":" else "~" * len(fence["mark"])
    yield fence["indent"] + mark, number
    yield from body
    yield fence["indent"] + mark, last


def _titled(indent: str, title: str, number: int, body: Iterator[Line]) -> Iterator[Line]:
    """The title as a paragraph of its own, then the body; blank lines around them keep
    them apart from the text before and after the block."""
    title = _SHORTCODE.sub("", title).strip()
    yield "", number
    if title:
        yield indent + ("\\" + title if title.startswith("#") else title), number  # no heading
        yield "", number
    last = number
    for line in body:
        last = line[1]
        yield line
    yield "", last


def _without_options(body: list[Line]) -> list[Line]:
    """A directive's body without its options (`:class: tip` lines or a `---` YAML block)."""
    if body and body[0][0].strip() == "---":
        closing = next((i for i, (line, _) in enumerate(body[1:], 1) if line.strip() == "---"),
                       None)
        if closing is not None:
            return body[closing + 1:]
    start = 0
    while start < len(body) and _DIRECTIVE_OPTION.match(body[start][0]):
        start += 1
    return body[start:]


def _fence_end(lines: list[Line], start: int, fence: re.Match[str]) -> int:
    """Index just past the fence's closing line (the end of `lines` when it is unclosed)."""
    for position in range(start + 1, len(lines)):
        if _closes(lines[position][0], fence):
            return position + 1
    return len(lines)


def _closes(line: str, fence: re.Match[str]) -> bool:
    mark = fence["mark"]
    stripped = line.strip()
    return len(stripped) >= len(mark) and set(stripped) == {mark[0]}


def _body_end(lines: list[Line], start: int, indent: int) -> int:
    """Index past the block's body: the lines indented by `indent` or more, and the blank
    lines between them (blank lines after the last one are left to what follows)."""
    end = position = start
    while position < len(lines):
        line = _expanded_indent(lines[position][0])
        if line.strip():
            if len(line) - len(line.lstrip(" ")) < indent:
                break
            end = position + 1
        position += 1
    return end


def _dedented(line: str, indent: int) -> str:
    """`line` without the body's four extra columns after the block's own `indent`."""
    line = _expanded_indent(line)
    return line[:indent] + line[indent + _BODY_INDENT:]


def _expanded_indent(line: str) -> str:
    """`line` with tabs in its indentation expanded (tabs inside it are content)."""
    text = line.lstrip(" \t")
    return line[:len(line) - len(text)].expandtabs(_BODY_INDENT) + text


def _without_heading_attributes(line: str) -> str | None:
    """An ATX heading line without its closing attribute list (and the closing #s before
    it); None when `line` is no heading or has none."""
    stripped = line.rstrip()
    if not stripped.endswith("}") or not _ATX_HEADING.match(stripped):
        return None
    start = stripped.rfind("{")
    if not _ATTRIBUTE_LIST.fullmatch(stripped, start):
        return None
    heading = stripped[:start].rstrip()
    closing = heading.rstrip("#")
    if closing != heading and closing.endswith((" ", "\t")) and _ATX_HEADING.match(closing):
        heading = closing.rstrip()
    return heading


def _without_roles(line: str) -> str:
    """`line` without MyST role names before code spans, each role's span as the text
    Sphinx shows (`{ref}`Options <opts>`` -> `Options`, `{func}`~a.b`` -> `b`); other code
    spans untouched (`{env_name}` in one is text)."""
    if "{" not in line or "`" not in line:
        return line
    parts = _TICKS.split(line)  # text, ticks, text, ticks, ..., text
    opened: str | None = None
    for index in range(0, len(parts) - 1, 2):
        if opened is None:
            text = _ROLE_AT_END.sub("", parts[index])
            closed = index + 3 < len(parts) and parts[index + 3] == parts[index + 1]
            if text != parts[index] and closed:
                parts[index + 2] = _role_title(parts[index + 2])
            parts[index] = text
            opened = parts[index + 1]
        elif parts[index + 1] == opened:
            opened = None
    return "".join(parts)


def _role_title(target: str) -> str:
    """A role's text as Sphinx shows it: the title before `<target>`, else the last part
    of a `~`-shortened name, else as written."""
    titled = _TITLED_TARGET.fullmatch(target)
    if titled:
        return titled["title"]
    return target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target
