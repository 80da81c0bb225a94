"""Lexical scoring over a chunk x term count matrix: TF-IDF cosine and Okapi BM25.

Both scorers are fitted from raw counts only, so an index assembled from stored per-file
counts scores exactly like a full rebuild. Each keeps its weights in CSC (column-major)
layout: a question touches only the columns of its few terms, so scoring costs the number
of postings of those terms, not the size of the corpus. Both are built from one CSC copy
of the counts (`columns`) so opening a large index converts the layout once. They are
plain numpy (`docai.index.sparse`), so a warm search never imports scipy.

The TF-IDF idf comes from scikit-learn (`smooth_idf`), imported only when an idf is
computed: it is stored with the counts in the cache, so a warm start, which reuses the
stored idf, never pays the second-long import.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docai.index.sparse import Csc, Csr


def _per_entry(column_values: np.ndarray, columns: Csc) -> np.ndarray:
    """Each column's value repeated over its stored entries (cheaper than gathering by a
    column id per entry: nothing is looked up)."""
    return np.repeat(column_values, np.diff(columns.indptr))


def lucene_idf(document_frequency: np.ndarray, rows: int) -> np.ndarray:
    """Lucene's BM25 idf, ln(1 + (n - df + 0.5) / (df + 0.5)), float64, always positive; a
    frequency of 0 (a term no chunk holds) counts as 1."""
    frequency = np.maximum(document_frequency, 1).astype(np.float64)
    return np.log1p((rows - frequency + 0.5) / (frequency + 0.5))


def smooth_idf_of(document_frequency: np.ndarray, rows: int) -> np.ndarray:
    """`smooth_idf` from document frequencies and a number of rows, computed as scikit-learn
    computes it (float64, n + 1 over df + 1, then the log): the same array to the last bit,
    for a store that keeps the frequencies rather than the counts."""
    frequency = document_frequency.astype(np.float64) + 1.0
    return np.log(float(rows + 1) / frequency) + 1.0


def smooth_idf(counts: Csr | Csc) -> np.ndarray:
    """The idf scikit-learn's `TfidfTransformer(sublinear_tf=True, norm="l2")` fits on a
    chunk x term count matrix: ln((1 + n) / (1 + df)) + 1 per column, float64, each >= 1.

    It depends only on the number of rows and each column's document frequency, so CSR
    and CSC layouts of the same counts give the same array.
    """
    if counts.shape[1] == 0:  # no terms at all (empty docs folder): scikit-learn refuses
        return np.zeros(0)
    from sklearn.feature_extraction.text import TfidfTransformer  # here: a 1 s import

    return TfidfTransformer(sublinear_tf=True, norm="l2").fit(counts.to_scipy()).idf_


def tfidf_norms(columns: Csc, idf: np.ndarray) -> np.ndarray:
    """Each row's TF-IDF length (sublinear tf times idf), summed as `TfidfScorer.fit` sums
    it, to the last bit: what a store keeps per chunk so a question read from its postings
    alone scores as the whole index does."""
    return _weights_and_norms(columns, idf)[1]


def _weights_and_norms(columns: Csc, idf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(1 + ln tf) * idf per entry, and each row's L2 length of them."""
    weights = np.log(columns.data, dtype=np.float64)
    weights += 1.0
    scratch = _per_entry(idf[: columns.shape[1]], columns)
    weights *= scratch
    squares = np.square(weights, out=scratch)  # reused: one 8-byte-per-count temporary fewer
    norms = np.sqrt(np.bincount(columns.indices, weights=squares, minlength=columns.shape[0]))
    return weights, norms


@dataclass(frozen=True, eq=False)
class TfidfScorer:
    """Sublinear TF-IDF, L2-normalised rows; a query's score is its cosine with each chunk.

    The idf is scikit-learn's (`smooth_idf`), ln((1 + n) / (1 + df)) + 1. The transformer's
    weighting (1 + ln tf, times idf, rows scaled to unit length) is applied here directly
    in column layout, and the query vector gets the same weighting, so scores are true
    cosines in 0..1, comparable across questions.
    """

    idf: np.ndarray
    by_column: Csc

    @classmethod
    def fit(
        cls, counts: Csr | None, columns: Csc, idf: np.ndarray | None = None,
        norms: np.ndarray | None = None,
    ) -> TfidfScorer:
        """`columns` is the column layout of `counts` (shared with the BM25 scorer); `idf` is
        `smooth_idf(counts)` when already known (stored in the cache), else computed here.
        `norms` are the rows' lengths when `columns` hold only some of each row's terms (a
        store's postings of a question's terms): `tfidf_norms` of the whole rows, and then
        `counts` may be None (only `columns` is read)."""
        if columns.shape[1] == 0:  # no terms at all (empty docs folder): nothing can match
            return cls(idf=np.zeros(0) if idf is None else idf,
                       by_column=Csc.empty(columns.shape))
        if idf is None:
            idf = smooth_idf(columns)
        weights, row_norms = _weights_and_norms(columns, idf)
        weights /= (row_norms if norms is None else norms)[columns.indices]
        return cls(idf=idf, by_column=columns.with_data(weights))

    def query_vector(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        weights = (1.0 + np.log(term_counts)) * self.idf[term_ids]
        return weights / np.linalg.norm(weights)

    def scores(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        """Cosine of the question with every chunk (0 for chunks sharing no term).

        `idf` may cover more terms than the columns (a store's candidate chunks lack terms
        the collection holds): those weigh in the question's length, and match no chunk."""
        weights = self.query_vector(term_ids, term_counts)
        held = term_ids < self.by_column.shape[1]
        return self.by_column.weighted_sum(term_ids[held], weights[held])

    def similarities(self, counts: Csr) -> np.ndarray:
        """Pairwise cosine between the chunks whose count rows are given (dense, square).

        Computed as scipy computed it, to the last bit: each row's length by
        `np.add.reduceat` over its squares, rows scaled by the inverse length, and each
        pair's dot product summed from 0 over their shared terms in descending column
        order (the order scipy's sparse product visits a row it has just scaled).
        """
        rows = counts.row_ids()
        values = np.log(counts.data.astype(np.float64))
        values += 1.0
        values *= self.idf[counts.indices]
        size = counts.shape[0]
        lengths = np.zeros(size)
        nonempty = np.flatnonzero(np.diff(counts.indptr))
        if len(nonempty):
            lengths[nonempty] = np.add.reduceat(values * values, counts.indptr[nonempty])
        lengths = np.sqrt(lengths)
        scaled = (1.0 / np.where(lengths > 0, lengths, 1.0))[rows] * values
        # Entries by column descending (rows ascending within one), then every pair of
        # entries of one column: a pair's products arrive in descending column order.
        order = np.lexsort((rows, -counts.indices.astype(np.int64)))
        columns, rows, scaled = counts.indices[order], rows[order], scaled[order]
        starts = np.flatnonzero(np.diff(columns, prepend=-1))
        group = np.diff(np.append(starts, len(columns)))
        partners = np.repeat(group, group)  # per entry: the entries sharing its column
        left = np.repeat(np.arange(len(columns)), partners)
        first = np.repeat(np.repeat(starts, group), partners)
        right = first + np.arange(len(left)) - np.repeat(np.cumsum(partners) - partners, partners)
        pairs = rows[left].astype(np.int64) * size + rows[right]
        dots = np.bincount(pairs, weights=scaled[left] * scaled[right], minlength=size * size)
        return dots.reshape(size, size)


@dataclass(frozen=True, eq=False)
class Bm25Scorer:
    """Okapi BM25 with Lucene's idf (`lucene_idf`).

    The per-(chunk, term) contributions are precomputed, so a query is a sum of columns
    weighted by how often each term occurs in the question.
    """

    by_column: Csc

    @classmethod
    def fit(
        cls, counts: Csr | None, columns: Csc, k1: float, b: float,
        collection: tuple[np.ndarray, int, float] | None = None,
        lengths: np.ndarray | None = None,
    ) -> Bm25Scorer:
        """`columns` is the column layout of `counts` (shared with the TF-IDF scorer); `k1` is the
        term-frequency saturation, `b` the length normalisation (`RetrievalParams`).

        `collection` (document frequency of each column, rows, mean row length) scores some
        chunks of a larger collection as the whole collection would (a store's candidates);
        None: `counts` are the whole collection. `lengths` are the rows' term totals when
        `columns` hold only some of each row's terms (a store's postings); `counts` is read
        only when they are not given."""
        if lengths is None:
            assert counts is not None, "the rows' lengths come from the counts or are given"
            lengths = counts.row_sums()
        lengths = lengths.astype(np.float64)
        if collection is None:
            n_rows = columns.shape[0]
            idf = lucene_idf(np.diff(columns.indptr), n_rows)
            average = (lengths.mean() if n_rows else 0.0) or 1.0  # all-empty rows: no 0 division
        else:
            frequency, n_rows, average = collection
            idf = lucene_idf(frequency[: columns.shape[1]], n_rows)
            average = average or 1.0
        tf = columns.data.astype(np.float64)
        # k1 * (1 - b + b * length / average), per row, then spread over the row's entries
        denominator = (k1 * (1.0 - b + b * lengths / average))[columns.indices]
        denominator += tf
        tf *= k1 + 1.0
        tf /= denominator
        tf *= _per_entry(idf, columns)
        return cls(by_column=columns.with_data(tf))

    def scores(self, term_ids: np.ndarray, term_counts: np.ndarray) -> np.ndarray:
        held = term_ids < self.by_column.shape[1]  # as in `TfidfScorer.scores`
        return self.by_column.weighted_sum(term_ids[held], term_counts[held])
