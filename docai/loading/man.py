"""Man pages (roff with the man(7) or mdoc(7) macros) -> sections, as `man` renders them.

groff and mandoc render roff, but a Python user may have neither, and no maintained
Python package reads it; a man page's structure is a handful of macros, so this reads
them line by line:
- `.TH name section` / `.Dt` give the title (`tar(1)`); `.SH`/`.Sh` sections and
  `.SS`/`.Ss` subsections are the heading path (NAME, SYNOPSIS, OPTIONS...);
- `.TP`, `.IP`, `.It` items start a block at their tag's line (an option cites its own
  line); `.PP`, `.LP`, `.P`, `.Pp`, `.sp` end a paragraph; `.nf`/`.fi`, `.EX`/`.EE`,
  `.Bd`/`.Ed` keep their lines as written;
- font macros (`.B`, `.BR`, `.I`...) and mdoc's callable macros (`Fl`, `Ar`, `Op`, `Xr`,
  `Nm`...) become the words they show (`.It Fl v Ar level` reads `-v level`);
- escapes become their characters (`\\-`, `\\(em`, `\\fB`, `\\*(Aq`, `\\[u00E9]`...), strings
  defined with `.ds` are substituted;
- comments, macro definitions (`.de`...`..`), `.ig` blocks, conditionals and layout
  requests leave no text. A page that is only `.so other.1` (a link to another page) is
  skipped, naming the page it points to.
Each line is read once with patterns that cannot backtrack, so a hostile page costs
linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docai import messages
from docai.loading.man_roff import inline, mdoc_words, split_arguments
from docai.loading.outline import Block, Heading, build_sections
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.records import Location

_REQUEST = re.compile(r"[.'][ \t]*(?P<name>[^\s\\]*)[ \t]*(?P<rest>.*)")
_FONT_MACROS = {"B", "I", "SM", "SB", "R"}
_ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
_PARAGRAPH = {"PP", "LP", "P", "Pp", "sp", "br", "HP", "Lp"}
_NO_FILL = {"nf", "EX", "Bd", "Dl", "D1"}
_FILL = {"fi", "EE", "Ed"}
_SKIPPED_TO_DOT = {"de", "de1", "am", "ig"}
_SECTIONS = {"SH": 2, "Sh": 2, "SS": 3, "Ss": 3}
_IGNORED = {
    "RS", "RE", "in", "ti", "ne", "ad", "na", "hy", "nh", "ft", "ps", "vs", "ll", "ta",
    "if", "ie", "el", "nr", "rr", "rm", "so", "Dd", "Os", "Bl", "El", "PD", "UC", "DT",
    "fam", "cs", "ss", "lf", "tr", "pc", "hw", "ev", "mk", "rt", "bp", "pl", "wh", "ch",
    "it", "cu", "ul", "do", "mso", "Ed", "Ek", "Bk", "Ds", "De", "Vb", "Ve", "UE", "ME",
    "YS", "PE", "TE", "TS", "IX", "iX", "Id", "In", "\\\"",
}
_COMMENT = re.compile(r"[.'][ \t]*\\[\"#]")


def parse_man(text: str, origin: Origin) -> Parsed:
    """Title (`name(section)`) and sections of a man page; a page that only points to
    another (`.so other.1`, or a symlink to a page in the folder, as Debian installs
    `egrep.1.gz` -> `grep.1.gz`) is skipped: the page it names is read once, by its name."""
    lines = text.split("\n")
    head = [line for line in lines[:20] if line.strip() and not _COMMENT.match(line)]
    if head and head[0].startswith(".so ") and len(head) == 1:
        raise UnusableFile(messages.LOAD_SKIP_MAN_LINK.format(target=head[0][4:].strip()))
    if (target := _linked_page(origin)) is not None:
        raise UnusableFile(messages.LOAD_SKIP_MAN_LINK.format(target=target))
    if not any(_REQUEST.match(line) for line in lines[:200]):
        raise UnusableFile(messages.LOAD_SKIP_NOT_MAN)
    reader = _ManReader(origin.stem)
    events = list(reader.events(lines))
    return Parsed(reader.title, build_sections([Heading(1, reader.title), *events],
                                               preamble_path=(reader.title,)))


def _linked_page(origin: Origin) -> str | None:
    """The page (relative to the docs folder) this file is a symlink to, when that page is
    in the folder; None otherwise (a link out of it is read here, as its only copy)."""
    path = origin.root / origin.path if not origin.path.is_absolute() else origin.path
    for candidate in (path, path.with_name(path.name + ".gz")):  # read through `.gz`
        try:
            if not candidate.is_symlink():
                continue
            target, root = candidate.resolve(strict=True), origin.root.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if target.is_relative_to(root) and target.is_file():
            return target.relative_to(root).as_posix()
    return None


class _ManReader:
    """The state of one page's reading: its title, strings, font and fill mode."""

    def __init__(self, stem: str) -> None:
        self.title = stem
        self.name = stem.split(".", 1)[0]
        self.strings: dict[str, str] = {}
        self.no_fill = False
        self.block: list[str] = []
        self.block_line = 0
        self.pending_tag = False
        self.pending_heading = 0

    def events(self, lines: list[str]) -> Iterator[Heading | Block]:
        skip_until_dots = False
        skipped_braces = 0  # `\{`...`\}` levels of a conditional being left out
        skip_next = False
        for number, line in enumerate(lines):
            if skip_until_dots:
                skip_until_dots = line.strip() != ".."
                continue
            if skipped_braces or skip_next:
                skipped_braces = max(0, skipped_braces + line.count("\\{") - line.count("\\}"))
                skip_next = line.endswith("\\") and not skipped_braces
                continue
            if _COMMENT.match(line):
                continue
            request = _REQUEST.fullmatch(line) if line[:1] in (".", "'") else None
            if request is None:
                yield from self.text(line, number)
                continue
            name, rest = request["name"], request["rest"]
            if name in _SKIPPED_TO_DOT:
                skip_until_dots = True
            elif name in ("if", "ie", "el"):
                skipped_braces = rest.count("\\{") - rest.count("\\}")
                skip_next = rest.endswith("\\") and not skipped_braces
            elif name == "ds":
                key, _, value = rest.partition(" ")
                self.strings.setdefault(key, inline(value.lstrip('"'), self.strings))
            elif name in ("TH", "Dt"):
                arguments = split_arguments(rest)
                if arguments:
                    self.name = inline(arguments[0], self.strings)
                    self.name = self.name.lower() if name == "Dt" else self.name
                    section = arguments[1] if len(arguments) > 1 else ""
                    self.title = f"{self.name}({section})" if section else self.name
            elif name in _SECTIONS:
                yield from self.flush()
                words = " ".join(inline(word, self.strings) for word in split_arguments(rest))
                if words:
                    yield Heading(_SECTIONS[name], words, Location("line", number + 1))
                else:
                    self.pending_heading = _SECTIONS[name]
            elif name in _PARAGRAPH:
                if name == "br" and self.block:
                    self.block.append("\n")
                elif not self.no_fill:
                    yield from self.flush()
            elif name in ("TP", "TQ"):
                yield from self.flush()
                self.pending_tag = True
            elif name == "IP":
                yield from self.flush()
                tag = inline(split_arguments(rest)[0], self.strings) if rest.strip() else ""
                if tag:
                    self.start(tag, number)
            elif name == "It":
                yield from self.flush()
                words = mdoc_words(rest, self.name, self.strings)
                if words:
                    self.start(words, number)
                    self.block.append("\n")
            elif name in _NO_FILL:
                yield from self.flush()
                self.no_fill = name != "Dl" and name != "D1"
                if not self.no_fill and rest:
                    self.start(mdoc_words(rest, self.name, self.strings), number)
                    yield from self.flush()
            elif name in _FILL:
                yield from self.flush()
                self.no_fill = False
            elif name in _FONT_MACROS:
                yield from self.text(" ".join(split_arguments(rest)), number)
            elif name in _ALTERNATING:
                yield from self.text("".join(split_arguments(rest)), number)
            elif name in _IGNORED:
                continue
            elif name in ("SY", "OP", "UR", "MT", "Nd", "Ex", "Rv") or name[:1].isupper():
                words = mdoc_words(f"{name} {rest}", self.name, self.strings)
                if words:
                    yield from self.text(words, number, already_inline=True)
            # anything else (layout requests, unknown lower-case requests) shows nothing
        yield from self.flush()

    def text(self, line: str, number: int, *,
             already_inline: bool = False) -> Iterator[Heading | Block]:
        words = line if already_inline else inline(line, self.strings)
        if self.pending_heading:  # `.SH` alone: its title is the next line
            level, self.pending_heading = self.pending_heading, 0
            if words.strip():
                yield Heading(level, words.strip(), Location("line", number + 1))
            return
        if self.pending_tag:
            self.pending_tag = False
            self.start(words, number)
            self.block.append("\n")
            return
        if not words.strip() and not self.no_fill:
            yield from self.flush()
            return
        if not self.block:
            self.block_line = number
        separator = "\n" if self.no_fill else " "
        if self.block and self.block[-1] != "\n":
            self.block.append(separator)
        self.block.append(words)

    def start(self, first: str, number: int) -> None:
        self.block = [first]
        self.block_line = number

    def flush(self) -> Iterator[Heading | Block]:
        text = "".join(self.block).strip()
        text = "\n".join(line.strip() if not self.no_fill else line.rstrip()
                         for line in text.split("\n"))
        self.block = []
        if text:
            yield Block(text, Location("line", self.block_line + 1))
