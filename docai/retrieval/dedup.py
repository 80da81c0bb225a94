"""Passages that say the same thing, found by their words: counted at index time, shown once.

A folder often holds one text twice: a Sphinx project with its `_build/html` beside the
sources, a PDF export beside its HTML, a page saved in two places. Their chunks are cut
differently and headed differently ("5.6.1. Source" in the HTML, "Source" in the reST), so
byte equality misses them; what they share is their words. A chunk's fingerprint is its
body (the heading line dropped) reduced to its words, case-folded, in order: two chunks
with the same fingerprint read the same to a person, whatever the markup, spacing or
punctuation around the words was.

Counting (`docai index`) uses the fingerprint: exact in words, one pass over the chunks.
At retrieval, where a handful of hits are compared, two chunks cut at different places
from one text must collapse too: a hit most of whose three-word sequences (shingles)
already appear in a better-ranked hit (`CONTAINED`) is that hit again, and is skipped.
This runs beside the TF-IDF cosine test (`RetrievalParams.duplicate_similarity`), which
misses a short passage inside a longer chunk (their cosine is low, their words the same).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"\w+")
# Below this many words a passage is a heading, a caption or a stub: "See also" twice is
# not a duplicate worth counting.
MIN_WORDS = 8
# The share of a passage's shingles found in a better hit above which it is a copy of it.
CONTAINED = 0.7


def fingerprint(chunk_text: str) -> bytes | None:
    """The chunk body's words, folded and hashed; None for a passage too short to judge."""
    body = chunk_text.split("\n", 1)[1] if "\n" in chunk_text else chunk_text
    words = _WORD.findall(body.casefold())
    if len(words) < MIN_WORDS:
        return None
    return hashlib.blake2b(" ".join(words).encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


def duplicate_count(texts: Iterable[str]) -> int:
    """How many chunks repeat the words of an earlier one (each copy after the first)."""
    seen: set[bytes] = set()
    copies = 0
    for text in texts:
        key = fingerprint(text)
        if key is None:
            continue
        if key in seen:
            copies += 1
        else:
            seen.add(key)
    return copies


def repeats(texts: Sequence[str]) -> list[bool]:
    """For each text of a ranking, whether it repeats a better-ranked one: most of its
    shingles (`CONTAINED`) are in that one (whichever of the two is longer)."""
    shingles = [_shingles(text) for text in texts]
    flags = []
    for position, mine in enumerate(shingles):
        flags.append(bool(mine) and any(
            theirs and len(mine & theirs) >= CONTAINED * min(len(mine), len(theirs))
            for theirs in shingles[:position]))
    return flags


def _shingles(chunk_text: str) -> set[tuple[str, ...]]:
    body = chunk_text.split("\n", 1)[1] if "\n" in chunk_text else chunk_text
    words = _WORD.findall(body.casefold())
    if len(words) < MIN_WORDS:
        return set()
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}
