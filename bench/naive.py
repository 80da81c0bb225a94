"""The baseline docai replaces: re-read, re-chunk and refit TF-IDF on every start.

This is what the original Clojure tool did: no cache, files parsed one after another, a
fresh scikit-learn `TfidfVectorizer` fitted on every chunk's text, and queries scored by a
sparse dot product with every chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from docai.chunking import chunk_document
from docai.loading import discover, load_file
from docai.records import Chunk
from docai.settings import ChunkSettings

Item = TypeVar("Item")


@dataclass(frozen=True)
class RefitIndex(Generic[Item]):
    """A scikit-learn `TfidfVectorizer` fitted on every item's text, queried by a sparse dot
    product with every item: the index of both baselines (`plain.py` fits it on windows)."""

    items: tuple[Item, ...]
    vectorizer: TfidfVectorizer
    matrix: sp.csr_matrix

    @property
    def size(self) -> int:
        return len(self.items)

    @classmethod
    def fit(cls, items: Sequence[Item], texts: Sequence[str]) -> RefitIndex[Item]:
        vectorizer = TfidfVectorizer()
        matrix = vectorizer.fit_transform(texts).tocsr()
        return cls(tuple(items), vectorizer, matrix)

    def search(self, question: str, k: int) -> list[tuple[Item, float]]:
        scores = (self.matrix @ self.vectorizer.transform([question]).T).toarray().ravel()
        best = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        best = best[np.argsort(-scores[best])]
        return [(self.items[i], float(scores[i])) for i in best if scores[i] > 0]


def build_naive(root: Path, chunking: ChunkSettings) -> RefitIndex[Chunk]:
    """Every file parsed and chunked as docai does, one after another, then one refit."""
    chunks: list[Chunk] = []
    for path in discover(root):
        document = load_file(root, path).document
        if document is not None:
            chunks.extend(chunk_document(document, chunking))
    return RefitIndex.fit(chunks, [chunk.text for chunk in chunks])
