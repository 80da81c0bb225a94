"""MkDocs and MyST block extensions rewritten as plain CommonMark, before parsing.

MkDocs sites write notes as admonitions (`!!! note "Title"`, collapsible `??? tip`) and
alternatives as content tabs (`=== "pip"`), each with a body indented by four spaces; MyST
(Sphinx) sites write notes as directives in fences (```` ```{note} ````) or colon fences
(`:::{tip}`). CommonMark reads an indented body as a code block and a directive as code, so
the notes' prose would be indexed and shown as raw markup (links as `[text](url)`). Here
each block becomes its title on a line of its own followed by its body as ordinary
Markdown; a MyST table of contents (`{toctree}`) is navigation and is dropped. Code (fenced
or any other directive) is left exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# `!!! note`, `!!! warning "Title"`, `??? tip`, `???+ info ""` (a type, then an optional
# title; "" means none) and `=== "Tab label"` (a title only).
_BLOCK = re.compile(
    r'(?P<indent>[ ]*)(?:(?:!!!|\?\?\?\+?)[ \t]*(?P<kind>[\w-]+)(?:[ \t]+[\w-]+)*'
    r'|===\+?)[ \t]*(?:"(?P<title>[^"]*)")?[ \t]*'
)
_FENCE = re.compile(r"(?P<indent>[ ]*)(?P<mark>`{3,}|~{3,}|:{3,})[ \t]*(?P<info>.*)")
_DIRECTIVE = re.compile(r"\{(?P<name>[\w:-]+)\}[ \t]*(?P<argument>.*)")
_DIRECTIVE_OPTION = re.compile(r"[ ]*:[\w-]+:")
_BODY_INDENT = 4
# A MyST role's name before its backquoted text ({doc}`usage`) and a MyST target line
# ("(labels)="): markup, not words.
_ROLE = re.compile(r"\{[\w:-]+\}(?=`)")
_TARGET = re.compile(r"[ ]*\([\w:.-]+\)=[ \t]*")
# An attribute list closing an ATX heading ("## 1.8.0 ## {: #hatch-v1.8.0 }", "# Title {#id}",
# Python-Markdown's attr_list and Pandoc's header attributes), with the closing #s before it.
_HEADING_ATTRIBUTES = re.compile(r"(?P<heading>[ ]{0,3}#{1,6}[ \t].*?)(?:[ \t]+#+)?[ \t]*"
                                 r"\{:?[ \t]*[#.][^{}]*\}[ \t]*")

# MyST directives whose body is prose (Docutils' admonitions and Sphinx's version notes).
PROSE_DIRECTIVES = frozenset({
    "admonition", "attention", "caution", "danger", "deprecated", "error", "hint",
    "important", "note", "seealso", "tip", "todo", "versionadded", "versionchanged",
    "warning",
})
NAVIGATION_DIRECTIVES = frozenset({"toctree"})


def unfold_blocks(text: str) -> str:
    """`text` with admonitions, content tabs and MyST prose directives as plain Markdown;
    MyST roles' names and targets and headings' attribute lists removed."""
    return "\n".join(_unfold(text.split("\n")))


def _unfold(lines: list[str]) -> Iterator[str]:
    position = 0
    while position < len(lines):
        line = lines[position]
        fence = _FENCE.fullmatch(line)
        if fence and (fence["mark"][0] != ":" or _DIRECTIVE.fullmatch(fence["info"])):
            end = _fence_end(lines, position, fence)
            yield from _fenced(lines[position:end], fence)
            position = end
            continue
        block = _BLOCK.fullmatch(line)
        if block and (block["kind"] or block["title"] is not None):
            end = _body_end(lines, position + 1, len(block["indent"]) + _BODY_INDENT)
            indent = block["indent"]
            title = block["kind"].capitalize() if block["title"] is None else block["title"]
            yield from (indent + title, "") if title else ()
            yield from _unfold([_dedented(body, len(indent)) for body in lines[position + 1:end]])
            position = end
            continue
        if not _TARGET.fullmatch(line):
            heading = _HEADING_ATTRIBUTES.fullmatch(line)
            yield heading["heading"] if heading else _ROLE.sub("", line)
        position += 1


def _fenced(lines: list[str], fence: re.Match[str]) -> Iterator[str]:
    """A fenced block: a prose directive unfolded, a table of contents dropped, code kept."""
    directive = _DIRECTIVE.fullmatch(fence["info"])
    name = directive["name"].casefold() if directive else ""
    if name in NAVIGATION_DIRECTIVES:
        return
    if name not in PROSE_DIRECTIVES:
        yield from lines
        return
    closed = len(lines) > 1 and _closes(lines[-1], fence)
    body = lines[1:-1] if closed else lines[1:]
    while body and _DIRECTIVE_OPTION.match(body[0]):
        body = body[1:]
    yield fence["indent"] + (directive["argument"].strip() or name.capitalize())
    yield ""
    yield from _unfold(body)


def _fence_end(lines: list[str], start: int, fence: re.Match[str]) -> int:
    """Index just past the fence's closing line (the end of `lines` when it is unclosed)."""
    for position in range(start + 1, len(lines)):
        if _closes(lines[position], fence):
            return position + 1
    return len(lines)


def _closes(line: str, fence: re.Match[str]) -> bool:
    mark = fence["mark"]
    stripped = line.strip()
    return len(stripped) >= len(mark) and set(stripped) == {mark[0]}


def _body_end(lines: list[str], start: int, indent: int) -> int:
    """Index past the block's body: the lines indented by `indent` or more, and the blank
    lines between them (blank lines after the last one are left to what follows)."""
    end = position = start
    while position < len(lines):
        line = lines[position].expandtabs(_BODY_INDENT)
        if line.strip():
            if len(line) - len(line.lstrip(" ")) < indent:
                break
            end = position + 1
        position += 1
    return end


def _dedented(line: str, indent: int) -> str:
    """`line` without the body's four extra columns after the block's own `indent`."""
    line = line.expandtabs(_BODY_INDENT)
    return line[:indent] + line[indent + _BODY_INDENT:]
