"""The stored per-chunk term counts (`TermMatrix`) and their one canonical layout.

The index stage counts terms per file and merges the counts (`docai.index.counts`); the
search index derives every weight from them. `canonical` puts any matrix in one layout per
content (sorted vocabulary, no unused term, int32 counts with sorted column indices), so a
matrix assembled from stored parts, perhaps with stale vocabulary or in another column
order, yields bit-identical weights, scores and fingerprint to a rebuild: floating-point
sums run over the same terms in the same order.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from docai.index.sparse import Csc, Csr


@dataclass(frozen=True, eq=False)
class TermMatrix:
    """Term counts: row i = chunk i, column j = `vocabulary[j]`; int32, canonical CSR.

    `counts` may be given as any scipy sparse matrix too (the build and tests make them);
    it is kept as a `Csr`. `column_order`, when known (the cache stores it), is the
    entries' column-major order (`Csr.column_order`), so the column layout the scorers
    need costs a gather instead of a sort.
    """

    vocabulary: tuple[str, ...]
    counts: Csr
    column_order: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", Csr.of(self.counts))
        if self.counts.shape[1] != len(self.vocabulary):
            raise ValueError(
                f"{self.counts.shape[1]} columns for {len(self.vocabulary)} vocabulary terms"
            )

    @property
    def rows(self) -> int:
        return self.counts.shape[0]


def canonical(matrix: TermMatrix) -> tuple[TermMatrix, Csc, bool]:
    """`matrix` in canonical form, with its column layout (which the scorers fit from)
    and whether the columns are the given ones in the given order (so per-column values
    computed for `matrix`, such as a stored idf, still line up).

    A matrix loaded from the cache or merged by `counts.merge` is canonical already; the
    column layout, needed anyway, shows it (no empty column) without another pass. Any
    other is rearranged with scipy, imported only then.
    """
    counts, vocabulary, order = matrix.counts, matrix.vocabulary, matrix.column_order
    if not counts.is_canonical():
        counts, order = Csr.of(_canonical_counts(counts.to_scipy())), None
        matrix = TermMatrix(vocabulary, counts)
    columns = Csc.of_rows(counts, counts.column_order() if order is None else order)
    if np.all(np.diff(columns.indptr)) and all(map(operator.lt, vocabulary, vocabulary[1:])):
        return matrix, columns, True
    used = np.flatnonzero(np.diff(columns.indptr)).tolist()
    ordered = sorted(used, key=vocabulary.__getitem__)
    prepared = Csr.of(_canonical_counts(counts.to_scipy()[:, ordered]))
    return (TermMatrix(tuple(vocabulary[j] for j in ordered), prepared),
            Csc.of_rows(prepared, prepared.column_order()), False)


def _canonical_counts(counts: Any) -> Any:
    """int32 counts, duplicates summed, column indices sorted: one layout per content
    (`counts` is a scipy CSR matrix)."""
    if counts.dtype == np.int32 and counts.has_canonical_format:
        return counts
    counts = counts.astype(np.int32)
    counts.sum_duplicates()
    counts.sort_indices()
    return counts
