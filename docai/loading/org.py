"""Org-mode (`.org`) -> sections, as Org's own export shows a file: headings (`*`, `**`...)
make the heading path, their TODO keyword, priority and tags left out.

Why a reader of its own: Org's structure is line-based and small to read, and the Python
libraries for it (orgparse) parse into a tree of nodes that would still need this walk.
What is read: `#+TITLE:` as the title; paragraphs, lists and tables as written (a table's
rule lines dropped); source, example, quote and verse blocks' content; fixed-width lines
(`: text`) without their colon; a link as its description (`[[url][text]]` -> `text`),
or its target when it has none; emphasis markers (`*bold*`, `/italic/`, `=code=`...)
dropped around their words; a footnote's definition as text.
What is not: `#+KEYWORD:` lines, comments (`# ...`, comment blocks, a `COMMENT` heading's
whole subtree), drawers (`:PROPERTIES:` ... `:END:`), planning lines (`SCHEDULED:`...),
export blocks (raw HTML or LaTeX), footnote references.
Every passage is cited by the line its text starts on (`notas.org:42`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed
from docai.records import Location

_HEADING = re.compile(r"(\*+)\s+(.*?)\s*")
_TODO = re.compile(r"(?:TODO|DONE|NEXT|WAITING|HOLD|CANCELL?ED)\s+|(?:TODO|DONE)$")
_PRIORITY = re.compile(r"\[#[A-Za-z0-9]\]\s*")
_TAGS = re.compile(r"\s+:[\w@#%:]+:$")
_KEYWORD = re.compile(r"\s*#\+(\w+(?:\[[^]]*\])?):\s?(.*)")
_BLOCK_START = re.compile(r"\s*#\+begin_(\w+)", re.IGNORECASE)
_DRAWER = re.compile(r"\s*:[\w-]+:\s*")
_DRAWER_END = re.compile(r"\s*:end:\s*", re.IGNORECASE)
_PLANNING = re.compile(r"\s*(?:SCHEDULED|DEADLINE|CLOSED):")
_COMMENT = re.compile(r"\s*#(?:\s|$)")
_FIXED_WIDTH = re.compile(r"(\s*):(?: |$)")
_TABLE_RULE = re.compile(r"\s*\|[-+|]*-[-+|]*\s*")
_LINK = re.compile(r"\[\[([^]\n]*)\](?:\[([^]\n]*)\])?\]")
_FOOTNOTE_REF = re.compile(r"(?<=\S)\[fn:[^]\n]*\]|^\[fn:[^]\n]*\]\s*")
_EMPHASIS = re.compile(r"(?<![\w*/=~+])([*/=~+_])(?=\S)([^\n]*?\S)\1(?!\w)")
# Blocks whose content is not the document's text once exported.
_DROPPED_BLOCKS = frozenset({"comment", "export"})
# Blocks whose content is shown as written (no inline markup inside).
_VERBATIM_BLOCKS = frozenset({"src", "example"})


def parse_org(text: str, origin: Origin) -> Parsed:
    lines = text.splitlines()
    title = next((match.group(2).strip() for line in lines[:200]
                  if (match := _KEYWORD.match(line)) and match.group(1).lower() == "title"
                  and match.group(2).strip()), "") or origin.stem
    return Parsed(title, build_sections(_events(lines), preamble_path=(title,)))


def _events(lines: list[str]) -> Iterator[Heading | Block]:
    paragraph: list[tuple[int, str]] = []  # (line number, text) of the paragraph so far
    skip_below = 0  # inside a COMMENT heading's subtree: headings deeper than this
    # Where drawers may end, found once (a file of `:word:` lines and no `:END:` would
    # otherwise be searched to its end from each of them).
    drawer_ends = [at for at, line in enumerate(lines) if _DRAWER_END.fullmatch(line)]
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1
        heading = _HEADING.fullmatch(line)
        if heading is not None:
            yield from _flush(paragraph)
            level = len(heading.group(1))
            if skip_below and level > skip_below:
                continue
            skip_below = 0
            words = _heading_text(heading.group(2))
            if words.startswith("COMMENT ") or words == "COMMENT":
                skip_below = level
                continue
            yield Heading(level, _inline(words), Location("line", number))
            continue
        if skip_below:
            continue
        if (block := _BLOCK_START.match(line)) is not None:
            yield from _flush(paragraph)
            kind = block.group(1).lower()
            end = _block_end(lines, index, kind)
            if kind not in _DROPPED_BLOCKS:
                body = [(index + 1 + offset, content)
                        for offset, content in enumerate(lines[index:end])]
                if kind not in _VERBATIM_BLOCKS:
                    body = [(at, _inline(content)) for at, content in body]
                yield from _flush(body)
            index = end + 1
            continue
        if _DRAWER.fullmatch(line) and not _DRAWER_END.fullmatch(line):
            after = bisect_left(drawer_ends, index)
            if after < len(drawer_ends):  # else a lone `:word:` line, which is text
                yield from _flush(paragraph)
                index = drawer_ends[after] + 1
                continue
        if not line.strip():
            yield from _flush(paragraph)
        elif not (_KEYWORD.match(line) or _PLANNING.match(line) or _COMMENT.match(line)
                  or _TABLE_RULE.fullmatch(line)):
            if (fixed := _FIXED_WIDTH.match(line)) is not None:
                line = fixed.group(1) + line[fixed.end():]
            paragraph.append((number, _inline(line)))
    yield from _flush(paragraph)


def _block_end(lines: list[str], start: int, kind: str) -> int:
    """The index of the line ending a block of `kind` begun before `start` (the end of
    the file when it is never closed)."""
    closing = re.compile(rf"\s*#\+end_{re.escape(kind)}\s*", re.IGNORECASE)
    return next((at for at in range(start, len(lines)) if closing.fullmatch(lines[at])),
                len(lines))


def _flush(lines: list[tuple[int, str]]) -> Iterator[Block]:
    """The lines gathered as one block, each line after the first a turn (a passage cut
    from a long list or code block cites its own line); `lines` is emptied."""
    while lines and not lines[-1][1].strip():
        lines.pop()
    while lines and not lines[0][1].strip():
        lines.pop(0)
    if not lines:
        return
    text = ""
    turns: list[tuple[int, Location]] = []
    for number, content in lines:
        if text:
            text += "\n"
            turns.append((len(text), Location("line", number)))
        text += content
    first = lines[0][0]
    lines.clear()
    yield Block(text, Location("line", first), tuple(turns))


def _heading_text(raw: str) -> str:
    words = _TAGS.sub("", raw)
    words = _TODO.sub("", words, count=1) if _TODO.match(words) else words
    return _PRIORITY.sub("", words, count=1).strip()


def _inline(text: str) -> str:
    """A line as Org's export shows its words: links by their text, no emphasis markers
    and no footnote references."""
    text = _LINK.sub(lambda found: found.group(2) or found.group(1), text)
    text = _FOOTNOTE_REF.sub("", text)
    return _EMPHASIS.sub(r"\2", text)
