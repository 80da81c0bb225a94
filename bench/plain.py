"""The plainest baseline for real folders: stdlib HTML parser, character chunks, TF-IDF.

What a first attempt at "search my docs" looks like, with no structure at all: each page's
text as `html.parser` sees it (scripts and styles dropped, nothing else), Markdown and text
read as they are, fixed windows of characters, and a scikit-learn `TfidfVectorizer` fitted
on every window, one file after another. docai's full build, which parses structure, drops
site chrome, chunks by tokens and stems, must be no slower than this.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from bench.naive import RefitIndex
from docai.loading import discover

# About docai's 512 tokens and 48 tokens of overlap, at four characters a token.
WINDOW = 2000
OVERLAP = 200


class _TextOnly(HTMLParser):
    """Collects character data outside `<script>` and `<style>`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("script", "style"):
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.pieces.append(data)


def page_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() in (".html", ".htm"):
        parser = _TextOnly()
        parser.feed(text)
        parser.close()
        text = " ".join(parser.pieces)
    return " ".join(text.split())


def windows(text: str) -> list[str]:
    step = WINDOW - OVERLAP
    return [text[start:start + WINDOW] for start in range(0, max(len(text) - OVERLAP, 1), step)]


def build_plain(root: Path) -> RefitIndex[str]:
    """Every file's plain text cut into windows, one file after another, then one refit."""
    chunks = [chunk for path in discover(root) for chunk in windows(page_text(path)) if chunk]
    return RefitIndex.fit(chunks, chunks)
