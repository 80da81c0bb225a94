"""Citation lines: how many passages of a folder cite a line within 5 of where their text
starts in the file (opened and searched, as a reader checking a citation would).

For each chunk with a line location, its body's first words (the heading line left out)
are looked for in the file, line by line, words compared case- and markup-blind (role,
directive and macro names left out of the file's words, and in Markdown links' targets,
tags and fence lines); the
line where they first appear nearest the cited one is where its text starts. Chunks whose
opening words are not found in the file (text a reader rewrote: a table, a role's title)
are counted apart.

Usage: scripts/eval_locations.py FOLDER [FOLDER...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docai.chunking import chunk_document  # noqa: E402
from docai.loading import discover, load_file  # noqa: E402
from docai.settings import Settings  # noqa: E402

NEAR = 5
_WORD = re.compile(r"[^\W_]{2,}")
# Markup names a reader never sees, left out of the file's words: reST roles and
# directives (`:func:`, `.. note::`), AsciiDoc macros (`linkgit:git-am[1]` reads
# `git-am(1)`).
_MARKUP_NAMES = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:(?=`)|^\s*\.\. [\w:.+-]+::"
                           r"|\b[a-z][\w-]*:(?=[^\s\[\]]*\[)")


# What Markdown writes and a reader of the page never sees: a link's target
# (`[text](url "title")`, `[text][ref]`), a reference definition line, a raw tag, a fence
# line with its language or MyST directive, a MyST role's name.
_MARKDOWN_HIDDEN = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)|\]\[[^\]]*\]"
                              r"|^\s*\[[^\]]+\]:\s.*|</?[A-Za-z][^<>\n]*>"
                              r"|^\s*(?:`{3,}|~{3,}|:{3,}).*|\{[\w:-]+\}(?=`)")
_MARKDOWN = (".md", ".markdown", ".mdx")


def words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(text)]


def file_words(line: str, markdown: bool = False) -> list[str]:
    """A file line's words as a reader of the rendered page sees them."""
    return words(_MARKUP_NAMES.sub(" ", _MARKDOWN_HIDDEN.sub(" ", line) if markdown else line))


def started_at(lines: list[list[str]], opening: list[str], cited: int) -> int | None:
    """The line (from 1) nearest `cited` where `opening` begins (across line ends)."""
    flat: list[str] = []
    line_of: list[int] = []
    for number, line in enumerate(lines, 1):
        flat.extend(line)
        line_of.extend([number] * len(line))
    found = [line_of[i] for i in range(len(flat) - len(opening) + 1)
             if flat[i:i + len(opening)] == opening]
    return min(found, key=lambda line: abs(line - cited)) if found else None


def score(folder: Path) -> tuple[int, int, int, int]:
    """(near, far, not found, without a line) over every chunk of the folder."""
    settings = Settings(docs_dir=folder)
    near = far = lost = unlocated = 0
    for path in discover(folder):
        result = load_file(folder, path)
        if result.document is None:
            continue
        try:
            markdown = path.name.lower().endswith(_MARKDOWN)
            lines = [file_words(line, markdown) for line in
                     path.read_text(encoding="utf-8", errors="replace").split("\n")]
        except OSError:
            continue
        for chunk in chunk_document(result.document, settings.chunking):
            if chunk.location is None or chunk.location.unit != "line":
                unlocated += chunk.location is None
                continue
            opening = words(chunk.text.split("\n", 1)[-1])[:6]
            line = started_at(lines, opening, chunk.location.number) if opening else None
            if line is None:
                lost += 1
            elif abs(line - chunk.location.number) <= NEAR:
                near += 1
            else:
                far += 1
    return near, far, lost, unlocated


def main(folders: list[str]) -> int:
    for folder in folders:
        near, far, lost, unlocated = score(Path(folder))
        found = near + far
        print(f"{folder}: {near}/{found} found passages within {NEAR} lines "
              f"({near / max(found, 1):.1%}); {lost} not found in the file, "
              f"{unlocated} without a line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
