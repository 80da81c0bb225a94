"""Raw markup in passages: the share of a folder's chunks that still show markup a reader
of the rendered page would not see (a reST role or directive, ``literal`` quotes, a
trailing `::`, a MyST role or fence, an AsciiDoc block attribute or macro).

Usage: scripts/eval_markup.py FOLDER [FOLDER...]   (prints a few examples with -v)
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

MARKUP = re.compile(
    r":[a-z][\w:-]*:`|``\S|^\.\. [\w:-]+::|\w::$|^:::?\{|\{[a-z]+\}`|^```\{|^\[[a-z]+[,\]]"
    r"|\b(?:include|image|link|xref)::?\S*\[|^---+$|^\|===|^--8<--",
    re.MULTILINE)


def main(arguments: list[str]) -> int:
    verbose = "-v" in arguments
    for folder in (Path(a) for a in arguments if a != "-v"):
        settings = Settings(docs_dir=folder)
        total = marked = 0
        examples: list[str] = []
        for path in discover(folder):
            document = load_file(folder, path).document
            if document is None:
                continue
            for chunk in chunk_document(document, settings.chunking):
                total += 1
                found = MARKUP.search(chunk.text)
                if found:
                    marked += 1
                    if len(examples) < 12:
                        line = chunk.text[max(0, found.start() - 60):found.end() + 40]
                        examples.append(f"  {chunk.source}: {' '.join(line.split())}")
        print(f"{folder}: {marked}/{total} passages with raw markup ({marked / max(total, 1):.1%})")
        if verbose:
            print("\n".join(examples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
