"""The baseline docai replaces: re-read, re-chunk and refit TF-IDF on every start.

This is what the original Clojure tool did: no cache, files parsed one after another, a
fresh scikit-learn `TfidfVectorizer` fitted on every chunk's text, and queries scored by a
sparse dot product with every chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from docai.chunking import chunk_document
from docai.loading import discover, load_file
from docai.records import Chunk
from docai.settings import ChunkSettings


@dataclass(frozen=True)
class NaiveIndex:
    chunks: tuple[Chunk, ...]
    vectorizer: TfidfVectorizer
    matrix: sp.csr_matrix

    @property
    def size(self) -> int:
        return len(self.chunks)

    @classmethod
    def build(cls, root: Path, chunking: ChunkSettings) -> NaiveIndex:
        chunks: list[Chunk] = []
        for path in discover(root):
            document = load_file(root, path).document
            if document is not None:
                chunks.extend(chunk_document(document, chunking))
        vectorizer = TfidfVectorizer()
        matrix = vectorizer.fit_transform([chunk.text for chunk in chunks]).tocsr()
        return cls(tuple(chunks), vectorizer, matrix)

    def search(self, question: str, k: int) -> list[tuple[Chunk, float]]:
        scores = (self.matrix @ self.vectorizer.transform([question]).T).toarray().ravel()
        best = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        best = best[np.argsort(-scores[best])]
        return [(self.chunks[i], float(scores[i])) for i in best if scores[i] > 0]
