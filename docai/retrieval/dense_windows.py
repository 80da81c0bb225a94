"""Which windows a dense ranking embeds: every chunk cut into windows, keyed by checksum,
and the choice of the missing ones a question or a step of the pass embeds.

Kept apart from the ranking (`docai.retrieval.dense`) because it is pure bookkeeping over
the chunk table and the vector store: which windows a chunk has (cut once, on first use,
and kept: at 100k chunks cutting and hashing them all costs seconds), which of them lack a
vector, which fit a question's budget, and the fingerprint of the whole set that the store's
completeness mark names.
"""

from __future__ import annotations

import hashlib
import re
import sys

import numpy as np

from docai.index import vector_store
from docai.index.chunk_table import ChunkTable
from docai.retrieval.window_vectors import WindowVectors
from docai.retrieval.windows import windows
from docai.versioning import code_version

# A word, for choosing which window of a chunk a question embeds first.
_WORD = re.compile(r"\w{3,}")


class DenseWindows:
    """The windows of the chunks of one index (rows of `chunks`), cut with `window_chars`
    and `window_overlap`, and which of them `vectors` lacks."""

    def __init__(self, chunks: ChunkTable, vectors: WindowVectors, window_chars: int,
                 window_overlap: int) -> None:
        self.chunks = chunks
        self.vectors = vectors
        self.window_chars = window_chars
        self.window_overlap = window_overlap
        self._keys: dict[int, tuple[str, ...]] = {}
        self._fingerprint: bytes | None = None

    def __len__(self) -> int:
        return len(self.chunks)

    def keys(self, row: int) -> tuple[str, ...]:
        """The checksums of chunk `row`'s windows (the vector store's keys)."""
        keys = self._keys.get(row)
        if keys is None:
            keys = tuple(vector_store.checksum(text) for text in self.texts(row))
            self._keys[row] = keys
        return keys

    def texts(self, row: int) -> tuple[str, ...]:
        """Chunk `row`'s windows."""
        return windows(self.chunks.texts[row], self.window_chars, self.window_overlap)

    def texts_of(self, wanted: list[tuple[int, str]]) -> dict[str, str]:
        """The text of each window (row, key) in `wanted`, by key."""
        texts: dict[str, str] = {}
        for row in dict.fromkeys(row for row, _ in wanted):
            texts.update(zip(self.keys(row), self.texts(row), strict=True))
        return texts

    def complete_row(self, row: int) -> bool:
        """Whether every window of chunk `row` has its vector."""
        return not self.vectors.missing(self.keys(row))

    def fingerprint(self) -> bytes:
        """What the store's completeness mark names: the chunk texts, the window sizes and
        the code that cuts windows (the vectors needed follow from these alone). One hash
        over the table's text buffer: a fraction of a second at 100k chunks, outside the GIL."""
        if self._fingerprint is not None:
            return self._fingerprint
        texts = self.chunks.texts
        cutting = code_version("1", modules=[sys.modules["docai.retrieval.windows"]])
        digest = hashlib.sha256(f"windows {cutting} {self.window_chars} "
                                f"{self.window_overlap}\n".encode())
        digest.update(texts.offsets.astype("<i8", copy=False).tobytes())
        digest.update(np.ascontiguousarray(texts.data).data)
        self._fingerprint = digest.digest()
        return self._fingerprint

    def within_budget(
        self, rows: np.ndarray, budget: int
    ) -> tuple[list[tuple[int, str]], np.ndarray]:
        """The missing windows (row, key) of `rows` (best first) to embed for a question,
        at most `budget` of them (a row whose windows do not fit is passed over, unless
        it is the first), and the rows that will then have every vector."""
        wanted: dict[str, int] = {}
        kept: list[int] = []
        for row in rows.tolist():
            new = [key for key in self.vectors.missing(self.keys(row)) if key not in wanted]
            if new and kept and len(wanted) + len(new) > budget:
                continue
            wanted.update((key, row) for key in new)
            kept.append(row)
        return [(row, key) for key, row in wanted.items()], np.array(kept, dtype=np.int64)

    def best_missing(self, rows: np.ndarray, question: str) -> list[tuple[int, str]]:
        """(row, key) of the window of each of `rows` that shares most of the question's
        words, when it lacks a vector and the row has none at all, each key once: what a
        question embeds before the collection is (`dense_fresh_candidates`). A row with
        some vector already is scored by it: a bounded question embeds one window a row."""
        words = set(_WORD.findall(question.lower()))
        found: dict[str, int] = {}
        for row in rows.tolist():
            keys = self.keys(row)
            missing = self.vectors.missing(keys)
            if len(missing) < len(keys):
                continue
            texts = self.texts(row)
            shared = [len(words & set(_WORD.findall(text.lower()))) for text in texts]
            found.setdefault(keys[shared.index(max(shared))], row)
        return [(row, key) for key, row in found.items()]

    def with_vectors(self, rows: np.ndarray) -> np.ndarray:
        """The rows of `rows` (in order) with at least one window's vector."""
        kept = [row for row in rows.tolist()
                if len(self.vectors.missing(self.keys(row))) < len(self.keys(row))]
        return np.array(kept, dtype=np.int64)

    def missing(self, rows: np.ndarray) -> list[tuple[int, str]]:
        """(row, key) of each window of `rows` without a vector, each key once."""
        found: dict[str, int] = {}
        for row in rows.tolist():
            for key in self.vectors.missing(self.keys(row)):
                found.setdefault(key, row)
        return [(row, key) for key, row in found.items()]
