"""AsciiDoc (.adoc, .asciidoc) -> sections, by a small reader of its common structure.

No mature AsciiDoc parser exists in Python (asciidoc-py is GPL and legacy, Asciidoctor is
Ruby), so this reads the parts documentation uses, line by line, and says what it leaves:
Read:
- titles: `= Document title`, `== Section` ... `====== Level 5` (Markdown-style `#`
  titles too) and the older two-line titles (a line underlined with `=`, `-`, `~`, `^`
  or `+` of its length, give or take one), which make the heading path; each section cited by its
  title's line;
- paragraphs, lists (`*`, `-`, `.`, `1.`, `term::`), admonition paragraphs (`NOTE: ...`)
  and admonition blocks (`[NOTE]`), block titles (`.Title`) as lines of text;
- delimited blocks: listing `----` and literal `....` as code, verbatim; example `====`,
  sidebar `****`, quote `____` and open `--` blocks as prose; tables `|===` row by row;
- attribute entries (`:name: value`) substituted where `{name}` is used;
- `include::path[]` of files inside the docs folder (8 levels deep at most);
- inline markup reduced to its text: `*bold*`, `_emphasis_`, `'emphasis'`, `` `code` ``,
  `+pass+`, `link:url[text]`, `https://url[text]`, `<<id,text>>`,
  `xref:f.adoc#id[text]`, `footnote:[text]`; any other `macro:target[text]` as
  `target(text)` (git's `linkgit:git-commit[1]` reads `git-commit(1)`, as rendered).
Not read: conditionals are not evaluated (`ifdef::` lines are dropped, both branches kept),
passthrough blocks `++++` (raw HTML) and comments (`//`, `////`) are dropped, images and
block attributes (`[source,python]`, `[[anchor]]`) leave no text, attribute references
that are not defined stay as written, include tag and line selections are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from docai import messages
from docai.loading.names import display_name
from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed
from docai.loading.reading import Unreadable, read_text
from docai.records import Location

MAX_INCLUDE_DEPTH = 8
MAX_INCLUDE_BYTES = 2 * 1024 * 1024
_TITLE = re.compile(r"(?P<marks>={1,6}|#{1,6})[ \t]+(?P<text>\S.*?)(?:[ \t]+(?P=marks))?[ \t]*")
_ATTRIBUTE = re.compile(r":(?P<name>!?[\w][\w-]*!?):(?:[ \t]+(?P<value>.*))?")
_ATTRIBUTE_REF = re.compile(r"\{(?P<name>[\w][\w-]*)\}")
_INCLUDE = re.compile(r"include::(?P<target>[^\[\s]+)\[[^\]]*\][ \t]*")
_DIRECTIVE_LINE = re.compile(r"(?:ifdef|ifndef|ifeval|endif)::.*|toc::\[.*\]|image::.*")
_BLOCK_ATTRIBUTES = re.compile(r"\[(?P<body>[^\]]*)\][ \t]*|\[\[[^\]]*\]\][ \t]*")
_BLOCK_TITLE = re.compile(r"\.(?P<text>[^\s.].*)")
_ADMONITION = re.compile(r"(?P<kind>NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(?P<text>.*)")
_DELIMITERS = {"----": "code", "....": "code", "====": "prose", "****": "prose",
               "____": "prose", "--": "prose", "|===": "table", "++++": "drop", "////": "drop"}
_INLINE_RULES = (
    (re.compile(r"<<(?P<id>[^,>]+)(?:,\s*(?P<text>[^>]+))?>>"),
     lambda m: m["text"] or m["id"].replace("_", " ").strip()),
    (re.compile(r"\bimage:[^\s\[]*\[[^\]]*\]"), lambda m: ""),
    (re.compile(r"\b(?:footnote|kbd|btn|menu|pass):[^\s\[]*\[(?P<text>[^\]]*)\]"),
     lambda m: m["text"]),
    (re.compile(r"\b(?:link|xref|https?|ftp|mailto|irc):(?://)?(?P<target>[^\s\[]*)"
                r"\[(?P<text>[^\]]*)\]"),
     lambda m: m["text"] or m["target"]),
    (re.compile(r"\b[a-z][\w-]*:(?P<target>[^\s\[:]+)\[(?P<text>[^\]]*)\]"),
     lambda m: m["target"] + (f"({m['text']})" if m["text"] else "")),
    (re.compile(r"(?<![\w*])\*{1,2}(?=\S)(?P<text>.+?)(?<=\S)\*{1,2}(?![\w*])"),
     lambda m: m["text"]),
    (re.compile(r"(?<![\w_])_{1,2}(?=\S)(?P<text>.+?)(?<=\S)_{1,2}(?![\w_])"),
     lambda m: m["text"]),
    (re.compile(r"(?<![\w'])'(?=\S)(?P<text>[^'\n]+?)(?<=\S)'(?![\w'])"), lambda m: m["text"]),
    (re.compile(r"`\+?(?P<text>[^`]+?)\+?`"), lambda m: m["text"]),
    (re.compile(r"(?<![\w+])\+(?=\S)(?P<text>[^+]+?)(?<=\S)\+(?![\w+])"), lambda m: m["text"]),
    (re.compile(r"[ \t]\+$"), lambda m: ""),
)
# Two-line titles: the underline's character gives the level (document title first).
_UNDERLINES = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_ADMONITION_LABELS = {"NOTE": "Note", "TIP": "Tip", "IMPORTANT": "Important",
                      "WARNING": "Warning", "CAUTION": "Caution"}


@dataclass
class _Reader:
    root: Path
    attributes: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    events: list[Heading | Block] = field(default_factory=list)


def parse_asciidoc(text: str, origin: Origin) -> Parsed:
    reader = _Reader(origin.root)
    _read(reader, text.split("\n"), origin.path, depth=0, located=True)
    document_title = next((e.text for e in reader.events
                           if isinstance(e, Heading) and e.level == 1), None)
    title = document_title or origin.stem
    return Parsed(title, build_sections(reader.events, preamble_path=(title,)),
                  tuple(reader.notes))


def _read(reader: _Reader, lines: list[str], path: Path, depth: int, located: bool) -> None:
    """Events for `lines` (of `path`); `located`: lines are the page's own, not an include's."""
    paragraph: list[str] = []
    paragraph_line = 0
    pending_label = ""
    position = 0

    def where(number: int) -> Location | None:
        return Location("line", number + 1) if located else None

    def flush() -> None:
        nonlocal pending_label
        if paragraph:
            body = _inline(" ".join(part.strip() for part in paragraph), reader.attributes)
            if pending_label:
                body, pending_label = f"{pending_label}: {body}", ""
            reader.events.append(Block(body, where(paragraph_line)))
            paragraph.clear()

    while position < len(lines):
        line = lines[position]
        stripped = line.rstrip()
        if stripped in _DELIMITERS:
            flush()
            end = _closing(lines, position, stripped)
            kind = _DELIMITERS[stripped]
            body = lines[position + 1:end]
            if kind == "code":
                code = "\n".join(body).strip("\n")
                if code.strip():
                    reader.events.append(Block(code, where(position)))
            elif kind == "table":
                rows = [_inline(" | ".join(cell.strip() for cell in row.split("|")[1:]),
                                reader.attributes) for row in body if row.strip()]
                reader.events.append(Block("\n".join(rows), where(position)))
            elif kind == "prose":
                if pending_label:
                    reader.events.append(Block(pending_label + ":", where(position)))
                    pending_label = ""
                _read(reader, body, path, depth, located=False)
            position = end + 1
            continue
        if stripped.startswith("//"):
            position += 1
            continue
        if not stripped:
            flush()
        elif title := _TITLE.fullmatch(stripped):
            flush()
            level = len(title["marks"])
            text = _inline(title["text"], reader.attributes)
            reader.events.append(Heading(level, text, where(position)))
        elif not paragraph and (level := _underlined(stripped, lines, position)):
            reader.events.append(Heading(level, _inline(stripped, reader.attributes),
                                         where(position)))
            position += 2
            continue
        elif attribute := _ATTRIBUTE.fullmatch(stripped):
            flush()
            name = attribute["name"].strip("!")
            reader.attributes[name] = _inline(attribute["value"] or "", reader.attributes)
        elif include := _INCLUDE.fullmatch(stripped):
            flush()
            _include(reader, include["target"], path, depth)
        elif _DIRECTIVE_LINE.fullmatch(stripped):
            flush()
        elif (block := _BLOCK_ATTRIBUTES.fullmatch(stripped)) and not paragraph:
            kind = (block["body"] or "").split(",")[0].strip()
            pending_label = _ADMONITION_LABELS.get(kind, "")
        elif (block_title := _BLOCK_TITLE.fullmatch(stripped)) and not paragraph:
            reader.events.append(Block(_inline(block_title["text"], reader.attributes),
                                       where(position)))
        elif admonition := _ADMONITION.match(stripped) if not paragraph else None:
            paragraph_line = position
            pending_label = _ADMONITION_LABELS[admonition["kind"]]
            paragraph.append(admonition["text"])
        elif _is_list_item(stripped):
            flush()
            paragraph_line = position
            paragraph.append(stripped)
            flush()
        else:
            if not paragraph:
                paragraph_line = position
            paragraph.append(stripped)
        position += 1
    flush()


def _underlined(line: str, lines: list[str], position: int) -> int:
    """The level of a two-line title whose text is `line` (0 when it is none): the next
    line is one character repeated, within one of the title's length (as Asciidoctor)."""
    if position + 1 >= len(lines) or not line or line[0] in "=-~^+.[/|*_ ":
        return 0
    if line.endswith((":", ".")):
        return 0  # "Run:" above a `----` listing introduces the block; it is no title
    under = lines[position + 1].rstrip()
    if len(under) < 2 or len(set(under)) != 1 or abs(len(under) - len(line)) > 1:
        return 0
    return _UNDERLINES.get(under[0], 0)


def _closing(lines: list[str], start: int, delimiter: str) -> int:
    for position in range(start + 1, len(lines)):
        if lines[position].rstrip() == delimiter:
            return position
    return len(lines)


def _is_list_item(line: str) -> bool:
    return bool(re.match(r"(?:[*\-]{1,5}|\.{1,5}|\d+\.)[ \t]+\S", line) or
                re.match(r"\S.*?:{2,4}(?:[ \t]+\S.*)?$", line))


def _include(reader: _Reader, target: str, path: Path, depth: int) -> None:
    shown = display_name(target)
    if depth >= MAX_INCLUDE_DEPTH:
        reader.notes.append(messages.LOAD_NOTE_INCLUDE_TOO_DEEP.format(target=shown))
        return
    target = _ATTRIBUTE_REF.sub(lambda m: reader.attributes.get(m["name"], m.group()), target)
    try:
        resolved = (path.parent / target).resolve()
        inside = resolved.is_relative_to(reader.root.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if not inside:
        reader.notes.append(messages.LOAD_NOTE_INCLUDE_OUTSIDE.format(target=shown))
        return
    if not resolved.is_file():
        reader.notes.append(messages.LOAD_NOTE_INCLUDE_MISSING.format(
            target=shown, reason=messages.LOAD_INCLUDE_NOT_FOUND))
        return
    read = read_text(resolved, max_bytes=MAX_INCLUDE_BYTES)
    if isinstance(read, Unreadable):
        reader.notes.append(messages.LOAD_NOTE_INCLUDE_MISSING.format(
            target=shown, reason=read.reason))
        return
    _read(reader, read.text.split("\n"), resolved, depth + 1, located=False)


def _inline(text: str, attributes: dict[str, str]) -> str:
    text = _ATTRIBUTE_REF.sub(lambda m: attributes.get(m["name"], m.group()), text)
    for pattern, replace in _INLINE_RULES:
        text = pattern.sub(replace, text)
    return text.strip()
