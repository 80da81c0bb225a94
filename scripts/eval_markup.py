"""Raw markup in passages: the share of a folder's chunks that still show markup a reader
of the rendered page would not see (a reST role or directive, ``literal`` quotes, a
trailing `::`, a MyST role or fence, an AsciiDoc block attribute or macro).

Two figures per folder: over all of a passage's text, and outside code. A code block
(a fence, an indented block, a MyST code directive, a reST literal block or `code-block`,
a doctest) is shown on the built page exactly as written, so `[pytest]` in an INI example
or `.. image::` in a reST snippet is what the reader sees there. Which lines are code is
asked of the reader's own parse of the file (`markdown.code_texts`, `rest.literal_texts`),
not guessed from the passage: a line of a passage counts as code when the same line, blanks
around it aside, is in one of the file's code blocks. Other formats count all their text.

Usage: scripts/eval_markup.py FOLDER [FOLDER...]   (-v: a few examples, [code] or [text])
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docai.chunking import chunk_document  # noqa: E402
from docai.loading import discover, load_file  # noqa: E402
from docai.loading.markdown import code_texts  # noqa: E402
from docai.loading.mdx import as_markdown  # noqa: E402
from docai.loading.parsed import Origin  # noqa: E402
from docai.loading.rest import literal_texts  # noqa: E402
from docai.settings import Settings  # noqa: E402

MARKUP = re.compile(
    r":[a-z][\w:-]*:`|``\S|^\.\. [\w:-]+::|\w::$|^:{2,}\{|\{[a-z]+\}`|^```\{|^\[[a-z]+[,\]]"
    r"|\b(?:include|image|link|xref)::?\S*\[|^---+$|^\|===|^--8<--",
    re.MULTILINE)
_REST = (".rst", ".rest", ".rst.txt", ".rest.txt")
_EXAMPLES = 12


def code_lines(folder: Path, path: Path) -> frozenset[str]:
    """The lines of `path`'s code blocks, as its reader parses them (empty for a format
    whose reader is not asked)."""
    name = path.name.lower()
    if not name.endswith((".md", ".markdown", ".mdx", *_REST)):
        return frozenset()
    text = path.read_text(encoding="utf-8", errors="replace")
    if name.endswith(_REST):
        blocks = literal_texts(text, Origin(folder, path))
    else:
        blocks = code_texts(as_markdown(text) if name.endswith(".mdx") else text)
    return frozenset(line.strip() for block in blocks for line in block.split("\n")
                     if line.strip())


def outside(text: str, code: frozenset[str]) -> str:
    """`text` without its lines that are code lines of the file."""
    return "\n".join(line for line in text.split("\n") if line.strip() not in code)


def main(arguments: list[str]) -> int:
    verbose = "-v" in arguments
    for folder in (Path(a) for a in arguments if a != "-v"):
        settings = Settings(docs_dir=folder)
        total = marked = in_text = 0
        examples: list[str] = []
        for path in discover(folder):
            document = load_file(folder, path).document
            if document is None:
                continue
            code = code_lines(folder, path)
            for chunk in chunk_document(document, settings.chunking):
                total += 1
                found = MARKUP.search(chunk.text)
                if not found:
                    continue
                marked += 1
                shown = MARKUP.search(outside(chunk.text, code))
                in_text += shown is not None
                if len(examples) < _EXAMPLES:
                    line = chunk.text[max(0, found.start() - 60):found.end() + 40]
                    kind = "text" if shown else "code"
                    examples.append(f"  [{kind}] {chunk.source}: {' '.join(line.split())}")
        print(f"{folder}: {marked}/{total} passages with raw markup "
              f"({marked / max(total, 1):.1%}); outside code {in_text}/{total} "
              f"({in_text / max(total, 1):.1%})")
        if verbose:
            print("\n".join(examples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
