"""Lexical scoring over a chunk x term count matrix: TF-IDF cosine and Okapi BM25.

Both scorers are fitted from raw counts only, so an index assembled from stored per-file
counts scores exactly like a full rebuild. Each keeps a CSC (column-major) weight matrix:
a question touches only the columns of its few terms, so scoring costs the number of
postings of those terms, not the size of the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer

BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True, eq=False)
class TfidfScorer:
    """Sublinear TF-IDF, L2-normalised rows; a query's score is its cosine with each chunk.

    `idf` is scikit-learn's smoothed idf, ln((1 + n) / (1 + df)) + 1. The query vector is
    built here with the same formula as the rows (1 + ln tf, times idf, L2-normalised) so
    that scores are true cosines in 0..1 and comparable across questions.
    """

    idf: np.ndarray
    by_column: sp.csc_matrix
    by_row: sp.csr_matrix

    @classmethod
    def fit(cls, counts: sp.csr_matrix) -> TfidfScorer:
        if counts.shape[1] == 0:  # no terms at all (empty docs folder): nothing can match
            rows = sp.csr_matrix(counts.shape, dtype=np.float64)
            return cls(idf=np.zeros(0), by_column=rows.tocsc(), by_row=rows)
        transformer = TfidfTransformer(sublinear_tf=True, norm="l2")
        rows = transformer.fit_transform(counts).tocsr()
        return cls(idf=transformer.idf_, by_column=rows.tocsc(), by_row=rows)

    def query_vector(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        weights = (1.0 + np.log(term_counts)) * self.idf[term_ids]
        return weights / np.linalg.norm(weights)

    def scores(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        """Cosine of the question with every chunk (0 for chunks sharing no term)."""
        return self.by_column[:, term_ids] @ self.query_vector(term_ids, term_counts)

    def similarities(self, rows: np.ndarray) -> np.ndarray:
        """Pairwise cosine between the given chunks (dense, len(rows) x len(rows))."""
        block = self.by_row[rows]
        return (block @ block.T).toarray()


@dataclass(frozen=True, eq=False)
class Bm25Scorer:
    """Okapi BM25 with Lucene's idf, ln(1 + (n - df + 0.5) / (df + 0.5)), always positive.

    The per-(chunk, term) contributions are precomputed, so a query is a sum of columns
    weighted by how often each term occurs in the question.
    """

    by_column: sp.csc_matrix

    @classmethod
    def fit(cls, counts: sp.csr_matrix, k1: float = BM25_K1, b: float = BM25_B) -> Bm25Scorer:
        n_rows = counts.shape[0]
        document_frequency = np.bincount(counts.indices, minlength=counts.shape[1])
        idf = np.log1p((n_rows - document_frequency + 0.5) / (document_frequency + 0.5))
        lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
        average = lengths.mean() if n_rows and lengths.mean() > 0 else 1.0
        tf = counts.data.astype(np.float64)
        row_of_entry = np.repeat(np.arange(n_rows), np.diff(counts.indptr))
        norm = k1 * (1.0 - b + b * lengths[row_of_entry] / average)
        weights = idf[counts.indices] * tf * (k1 + 1.0) / (tf + norm)
        matrix = sp.csr_matrix((weights, counts.indices, counts.indptr), shape=counts.shape)
        return cls(by_column=matrix.tocsc())

    def scores(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        return self.by_column[:, term_ids] @ term_counts.astype(np.float64)
