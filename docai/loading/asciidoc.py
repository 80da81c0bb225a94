"""AsciiDoc (.adoc, .asciidoc) -> sections, by a small reader of its common structure.

No mature AsciiDoc parser exists in Python (asciidoc-py is GPL and legacy, Asciidoctor is
Ruby), so this reads the parts documentation uses, line by line, and says what it leaves:
Read:
- titles: `= Document title`, `== Section` ... `====== Level 5` (Markdown-style `#`
  titles too) and the older two-line titles (a line underlined with `=`, `-`, `~`, `^`
  or `+` of its length, give or take one), which make the heading path; each section cited by its
  title's line;
- paragraphs, lists (`*`, `-`, `.`, `1.`; `term::` and `term;;` shown without their
  marker; a `+` line starting the item's next block), admonition paragraphs (`NOTE: ...`)
  and admonition blocks (`[NOTE]`), block titles (`.Title`) as lines of text; each line
  of a paragraph or listing cited by its own line;
- delimited blocks, their delimiter four characters or longer (`----------`): listing
  `----` and literal `....` as code, verbatim; example `====`, sidebar `****`, quote
  `____` and open `--` blocks as prose; tables `|===` row by row;
- attribute entries (`:name: value`) substituted where `{name}` is used (an expansion
  growing past MAX_EXPANSION characters, an attribute bomb, is left as written);
- Antora's component attributes (`antora.yml`), resource IDs in includes
  (`partial$x.adoc`) and `nav.adoc` menus (skipped), as `antora.py` reads them;
- `include::path[]` of files inside the docs folder (8 levels deep at most, none of the
  files being included, MAX_INCLUDES per page; each refused include noted once);
- inline markup reduced to its text: `*bold*`, `_emphasis_`, `'emphasis'`, `` `code` ``,
  `+pass+`, ``` ``quoted'' ``` (as “quoted”), `link:url[text]`, `https://url[text]`,
  `<<id,text>>`, `xref:f.adoc#id[text]`, `footnote:[text]`; any other
  `macro:target[text]` as `target(text)` (git's `linkgit:git-commit[1]` reads
  `git-commit(1)`, as rendered).
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
from docai.loading import antora
from docai.loading.names import display_name
from docai.loading.outline import Block, Heading, build_sections, line_turns
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import Unreadable, read_text
from docai.records import Location

MAX_INCLUDE_DEPTH = 8
MAX_INCLUDE_BYTES = 2 * 1024 * 1024
MAX_INCLUDES = 200
MAX_EXPANSION = 64 * 1024
_TITLE = re.compile(r"(?P<marks>={1,6}|#{1,6})[ \t]+(?P<text>\S.*?)(?:[ \t]+(?P=marks))?[ \t]*")
_ATTRIBUTE = re.compile(r":(?P<name>!?[\w][\w-]*!?):(?:[ \t]+(?P<value>.*))?")
_ATTRIBUTE_REF = re.compile(r"\{(?P<name>[\w][\w-]*)\}")
_INCLUDE = re.compile(r"include::(?P<target>[^\[\s]+)\[[^\]]*\][ \t]*")
_DIRECTIVE_LINE = re.compile(r"(?:ifdef|ifndef|ifeval|endif)::.*|toc::\[.*\]|image::.*")
_BLOCK_ATTRIBUTES = re.compile(r"\[(?P<body>[^\]]*)\][ \t]*|\[\[[^\]]*\]\][ \t]*")
_BLOCK_TITLE = re.compile(r"\.(?P<text>[^\s.].*)")
_ADMONITION = re.compile(r"(?P<kind>NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(?P<text>.*)")
_DELIMITERS = {"-": "code", ".": "code", "=": "prose", "*": "prose", "_": "prose",
               "+": "drop", "/": "drop"}
_TABLE = re.compile(r"[|!,:]={3,}")
_INLINE_RULES = (
    # the older syntax's curved quotes (git's ``Interactive mode''), shown as “…”
    (re.compile(r"``(?P<text>[^`'\n]+?)''"), lambda m: f"“{m['text']}”"),
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
    includes: int = 0
    reading: list[Path] = field(default_factory=list)  # the page, then each open include

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def parse_asciidoc(text: str, origin: Origin) -> Parsed:
    if antora.is_navigation(origin.root, origin.path):
        raise UnusableFile(messages.LOAD_SKIP_ANTORA_NAV)
    reader = _Reader(origin.root, antora.component_attributes(origin.root, origin.path))
    reader.reading.append(origin.path.resolve())
    _read(reader, text.split("\n"), origin.path, depth=0, first=0)
    document_title = next((e.text for e in reader.events
                           if isinstance(e, Heading) and e.level == 1), None)
    title = document_title or origin.stem
    return Parsed(title, build_sections(reader.events, preamble_path=(title,)),
                  tuple(reader.notes))


def _delimiter(line: str) -> str | None:
    """The kind of block `line` opens (`----`, `==========`, `--`, `|===`), or None."""
    if line == "--":
        return "prose"
    if _TABLE.fullmatch(line):
        return "table"
    if len(line) >= 4 and line[0] in _DELIMITERS and line == line[0] * len(line):
        return _DELIMITERS[line[0]]
    return None


def _read(reader: _Reader, lines: list[str], path: Path, depth: int, first: int | None) -> None:
    """Events for `lines` (of `path`); `first`: the page line `lines` start on (from 0),
    None for an include's lines (cited by the page's include line's section)."""
    paragraph: list[str] = []
    paragraph_line = 0
    pending_label = ""
    position = 0

    def where(number: int) -> Location | None:
        return Location("line", first + number + 1) if first is not None else None

    def flush() -> None:
        nonlocal pending_label
        if paragraph:
            body = _inline(" ".join(part.strip() for part in paragraph), reader.attributes)
            lead = ""
            if pending_label:
                lead, pending_label = f"{pending_label}: ", ""
            located = where(paragraph_line)
            reader.events.append(Block(lead + body, located,
                                       _line_turns(paragraph, located, len(lead), reader)))
            paragraph.clear()

    while position < len(lines):
        line = lines[position]
        stripped = line.rstrip()
        if kind := _delimiter(stripped):
            flush()
            end = _closing(lines, position, stripped)
            body = lines[position + 1:end]
            if kind == "code":
                code = "\n".join(body)
                lead = len(code) - len(code.lstrip("\n"))  # blank lines the block opens with
                if code.strip():
                    located = where(position + 1 + code.count("\n", 0, lead))
                    code = code.strip("\n")
                    reader.events.append(Block(code, located, line_turns(code, located)))
            elif kind == "table":
                rows = [_inline(" | ".join(cell.strip() for cell in row.split("|")[1:]),
                                reader.attributes) for row in body if row.strip()]
                reader.events.append(Block("\n".join(rows), where(position)))
            elif kind == "prose":
                if pending_label:
                    reader.events.append(Block(pending_label + ":", where(position)))
                    pending_label = ""
                _read(reader, body, path, depth, None if first is None else first + position + 1)
            position = end + 1
            continue
        if stripped.startswith("//"):
            position += 1
            continue
        if not stripped or stripped == "+":  # a `+` line: the next block joins the item
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
            paragraph.append(_TERM_MARKER.sub(_term, stripped))
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
                _TERM_MARKER.search(line))


# A description list's term (`--all::`, `-l;;`, `term:: its text`): the page shows the
# term without its marker.
_TERM_MARKER = re.compile(r"(?<=\S)(?::{2,4}|;;)(?:[ \t]+(?=\S)|$)")


def _term(match: re.Match[str]) -> str:
    """The marker's stand-in: nothing at the line's end, a line break before the term's
    text (`term:: text`)."""
    return "" if match.end() == len(match.string) else "\n"


def _line_turns(lines: list[str], location: Location | None, lead: int,
                reader: _Reader) -> tuple[tuple[int, Location], ...]:
    """Where each of a paragraph's lines starts in its text (the lines joined by a space,
    each read as `_inline` reads it): a long paragraph cited line by line."""
    if location is None or len(lines) < 2:
        return ()
    turns = []
    offset = lead
    for number, line in enumerate(lines[:-1], 1):
        offset += len(_inline(line.strip(), reader.attributes)) + 1
        turns.append((offset, Location("line", location.number + number)))
    return tuple(turns)


def _include(reader: _Reader, target: str, path: Path, depth: int) -> None:
    shown = display_name(target)
    target = _expanded(target, reader.attributes)
    try:
        resource = antora.resource_file(target, path, reader.root)
        resolved = (resource or path.parent / target).resolve()
        inside = resolved.is_relative_to(reader.root.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if not inside:
        reader.note(messages.LOAD_NOTE_INCLUDE_OUTSIDE.format(target=shown))
        return
    if depth >= MAX_INCLUDE_DEPTH or resolved in reader.reading:
        reader.note(messages.LOAD_NOTE_INCLUDE_TOO_DEEP.format(target=shown))
        return
    if reader.includes >= MAX_INCLUDES:
        reader.note(messages.LOAD_NOTE_INCLUDES_TOO_MANY.format(limit=MAX_INCLUDES))
        return
    if not resolved.is_file():
        reason = (messages.LOAD_INCLUDE_FOLDER if resolved.is_dir()
                  else messages.LOAD_INCLUDE_NOT_FOUND)
        reader.note(messages.LOAD_NOTE_INCLUDE_MISSING.format(target=shown, reason=reason))
        return
    reader.includes += 1
    read = read_text(resolved, max_bytes=MAX_INCLUDE_BYTES)
    if isinstance(read, Unreadable):
        reader.note(messages.LOAD_NOTE_INCLUDE_MISSING.format(target=shown, reason=read.reason))
        return
    reader.reading.append(resolved)
    try:
        _read(reader, read.text.split("\n"), resolved, depth + 1, None)
    finally:
        reader.reading.pop()


def _expanded(text: str, attributes: dict[str, str]) -> str:
    """`text` with `{name}` references replaced by their values, while the result stays
    within MAX_EXPANSION characters more than `text` (the rest are left as written)."""
    if "{" not in text:
        return text
    parts: list[str] = []
    room = MAX_EXPANSION
    cursor = 0
    for reference in _ATTRIBUTE_REF.finditer(text):
        value = attributes.get(reference["name"])
        if value is None or len(value) > room:
            continue
        room -= len(value)
        parts += (text[cursor:reference.start()], value)
        cursor = reference.end()
    parts.append(text[cursor:])
    return "".join(parts)


def _inline(text: str, attributes: dict[str, str]) -> str:
    text = _expanded(text, attributes)
    for pattern, replace in _INLINE_RULES:
        text = pattern.sub(replace, text)
    return text.strip()
