"""A chunk cut into short windows for embedding: its heading line, then a few paragraphs.

Why windows rather than whole chunks: a small embedding model (multilingual E5, 512
tokens) averages everything it reads into one vector, so a 512-token chunk about six
things matches a question about one of them only weakly. Measured on the issue's held-out
collection, the same chunks cut into ~600-character windows, each chunk scored by its best
window, ranked far better than the whole chunks, at about the same embedding cost per chunk.
Every window repeats the chunk's heading line (its heading path), so it stands alone as the
chunk does.

Pure functions of the text and the sizes: the same chunk always gives the same windows, so
their vectors, stored by content (`docai.index.vector_store`), are found again.
"""

from __future__ import annotations

import re

# A window's heading line longer than this share of the window is cut: the body matters more.
_HEADING_SHARE = 0.5
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def windows(text: str, size: int, overlap: int = 0) -> tuple[str, ...]:
    """`text` (a chunk: heading line, newline, body) as windows of about `size` characters.

    Paragraphs (blank-line separated) are packed whole while they fit; a longer one is cut
    at line breaks, then sentence ends, then spaces. `overlap` characters' worth of the
    trailing paragraphs of a window are repeated at the start of the next (0: none), so a
    passage that straddles two windows is whole in one of them.
    """
    if size < 1:
        raise ValueError(f"window size must be positive, not {size}")
    heading, _, body = text.partition("\n")
    heading = heading.strip()[: int(size * _HEADING_SHARE)]
    budget = max(size - len(heading) - 1, size // 2)
    pieces = [
        piece
        for paragraph in re.split(r"\n\s*\n", body)
        if paragraph.strip()
        for piece in _cut(paragraph.strip(), budget)
    ]
    if not pieces:
        return (text.strip()[:size] or text,)
    groups = _pack(pieces, budget, overlap)
    prefix = heading + "\n" if heading else ""
    return tuple(prefix + "\n\n".join(group) for group in groups)


def _pack(pieces: list[str], budget: int, overlap: int) -> list[list[str]]:
    """Pieces grouped greedily into runs of at most `budget` characters (joined by blank
    lines), each run after the first starting with the last pieces of the one before that
    fit in `overlap` characters."""
    groups: list[list[str]] = []
    current: list[str] = []
    length = 0
    for piece in pieces:
        added = len(piece) + (2 if current else 0)
        if current and length + added > budget:
            groups.append(current)
            current = _tail(current, overlap, budget - len(piece) - 2)
            length = sum(len(p) for p in current) + 2 * max(len(current) - 1, 0)
            added = len(piece) + (2 if current else 0)
        current.append(piece)
        length += added
    groups.append(current)
    return groups


def _tail(group: list[str], overlap: int, room: int) -> list[str]:
    """The last pieces of `group` totalling at most `overlap` characters (and `room`)."""
    kept: list[str] = []
    total = 0
    for piece in reversed(group):
        total += len(piece) + (2 if kept else 0)
        if total > min(overlap, room):
            break
        kept.insert(0, piece)
    return kept


def _cut(paragraph: str, budget: int) -> list[str]:
    """`paragraph` in pieces of at most `budget` characters, cut at the widest boundary
    that works: lines, then sentences, then words, then anywhere."""
    if len(paragraph) <= budget:
        return [paragraph]
    for boundary in (re.compile(r"\n"), _SENTENCE_END, re.compile(r"\s+")):
        parts = [part for part in boundary.split(paragraph) if part.strip()]
        if len(parts) > 1:
            joiner = "\n" if boundary.pattern == r"\n" else " "
            return _rejoin(parts, budget, joiner)
    return [paragraph[start : start + budget] for start in range(0, len(paragraph), budget)]


def _rejoin(parts: list[str], budget: int, joiner: str) -> list[str]:
    """Consecutive parts joined back while they fit; a part still too long is cut again."""
    pieces: list[str] = []
    current = ""
    for part in parts:
        part = part.strip()
        if len(part) > budget:
            if current:
                pieces.append(current)
                current = ""
            pieces.extend(_cut(part, budget))
        elif not current:
            current = part
        elif len(current) + len(joiner) + len(part) <= budget:
            current += joiner + part
        else:
            pieces.append(current)
            current = part
    if current:
        pieces.append(current)
    return pieces
