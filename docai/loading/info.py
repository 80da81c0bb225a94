"""GNU info manuals (`x.info`, and the parts `x.info-1`, `x.info-2` of a split one) ->
sections, one per node, as the `info` reader shows them.

An info file is plain text: each node starts after a `\\x1f` line with a header
(`File: grep.info,  Node: Exit Status,  Next: ..., Up: Invoking`). A node's heading path is
the chain of its `Up:` nodes within the file (`Invoking > Exit Status`), each node cited by
its header's line. Menus (`* Menu:` and their `* Node::` lines) are navigation, and the
underlines of the nodes' titles are decoration: neither is kept. The file's preamble, its
tag table and the indirect table of a split manual are not text: a manual's first file that
holds only the indirect table (its parts hold the nodes) is skipped with that reason.
"""

from __future__ import annotations

import re

from docai import messages
from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import Unreadable, text_of
from docai.records import Location

_SEPARATOR = "\x1f"
_HEADER = re.compile(r"File:[^,\n]*,[ \t]*Node:[ \t]*(?P<node>[^,\n\t]+)(?P<rest>.*)")
_UP = re.compile(r"Up:[ \t]*(?P<up>[^,\n\t]+)")
_UNDERLINE = re.compile(r"[ \t]*([=*\-.])\1{2,}[ \t]*")
_MENU_ENTRY = re.compile(r"\*[ \t]+[^:\n]+::?")
_MAX_DEPTH = 8
_INDEX_MARK = re.compile(rb"\0\x08\[(?:index|/index)\0\x08\]")


def parse_info(data: bytes, origin: Origin) -> Parsed:
    """Title (the manual's name) and one section per node. Read from bytes: an info index
    marks its entries with NUL and backspace bytes (`\\0\\b[index\\0\\b]`), which the
    text check would take for a binary file."""
    cleaned = _INDEX_MARK.sub(b"", data).replace(b"\0", b"")
    decoded = text_of(cleaned, origin.path)
    if isinstance(decoded, Unreadable):
        raise UnusableFile(decoded.reason)
    return _parse(decoded.text, origin)


def _parse(text: str, origin: Origin) -> Parsed:
    nodes: list[tuple[str, str, int, list[str]]] = []  # (name, up, header line, lines)
    lines = text.split("\n")
    current: list[str] | None = None
    after_separator = False
    for number, line in enumerate(lines):
        if line.startswith(_SEPARATOR):
            after_separator, current = True, None
            continue
        if after_separator:
            after_separator = False
            header = _HEADER.match(line)
            if header:
                up = _UP.search(header["rest"])
                current = []
                nodes.append((header["node"].strip(), up["up"].strip() if up else "",
                              number + 1, current))
            continue
        if current is not None:
            current.append(line)
    if not nodes:
        if "Indirect:" in text:
            raise UnusableFile(messages.LOAD_SKIP_INFO_INDIRECT)
        raise UnusableFile(messages.LOAD_SKIP_NO_TEXT)
    title = origin.stem.split(".info", 1)[0]
    ups = {name: up for name, up, _, _ in nodes}
    events: list[Heading | Block] = [Heading(1, title)]
    for name, _, header_line, body in nodes:
        path = _path(name, ups)
        for level, step in enumerate(path, 2):
            events.append(Heading(level, step, Location("line", header_line)))
        events.extend(_blocks(body, header_line + 1))
    return Parsed(title, build_sections(events, preamble_path=(title,)))


def _path(name: str, ups: dict[str, str]) -> list[str]:
    """`name` below the chain of its Up nodes in this file (the Top node left out)."""
    path = [name]
    while (up := ups.get(path[0])) and up in ups and up not in path and len(path) < _MAX_DEPTH:
        path.insert(0, up)
    return [step for step in path if step != "Top"] or [name]


def _blocks(lines: list[str], first: int) -> list[Block]:
    """Paragraphs of a node's text (blank-line separated), without menus and underlines."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    start = first
    in_menu = False
    for offset, line in enumerate(lines):
        stripped = line.strip()
        if stripped == "* Menu:":
            in_menu = True
        skip = in_menu and (not stripped or _MENU_ENTRY.match(stripped) or line[:1] in " \t")
        if stripped and not skip and in_menu:
            in_menu = False
        if not stripped or skip or stripped == "* Menu:" or _UNDERLINE.fullmatch(line):
            if paragraph:
                blocks.append(Block("\n".join(paragraph), Location("line", start)))
                paragraph = []
            continue
        if not paragraph:
            start = first + offset
        paragraph.append(line.rstrip())
    if paragraph:
        blocks.append(Block("\n".join(paragraph), Location("line", start)))
    return blocks
