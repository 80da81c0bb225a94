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

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class TermMatrix:
    """Term counts: row i = chunk i, column j = `vocabulary[j]`; int32, canonical CSR."""

    vocabulary: tuple[str, ...]
    counts: sp.csr_matrix

    def __post_init__(self) -> None:
        if self.counts.shape[1] != len(self.vocabulary):
            raise ValueError(
                f"{self.counts.shape[1]} columns for {len(self.vocabulary)} vocabulary terms"
            )

    @property
    def rows(self) -> int:
        return self.counts.shape[0]


def canonical(matrix: TermMatrix) -> tuple[TermMatrix, sp.csc_matrix, bool]:
    """`matrix` in canonical form, with its column layout (CSC, which the scorers fit from)
    and whether the columns are the given ones in the given order (so per-column values
    computed for `matrix`, such as a stored idf, still line up).

    A matrix loaded from the cache or merged by `counts.merge` is canonical already; the
    column layout, needed anyway, shows it (no empty column) without another pass.
    """
    counts = _canonical_counts(matrix.counts)
    columns = counts.tocsc()
    vocabulary = matrix.vocabulary
    if np.all(np.diff(columns.indptr)) and all(map(operator.lt, vocabulary, vocabulary[1:])):
        return TermMatrix(vocabulary, counts), columns, True
    used = np.flatnonzero(np.diff(columns.indptr)).tolist()
    order = sorted(used, key=vocabulary.__getitem__)
    prepared = TermMatrix(
        tuple(vocabulary[j] for j in order), _canonical_counts(counts[:, order])
    )
    return prepared, prepared.counts.tocsc(), False


def _canonical_counts(counts: sp.csr_matrix) -> sp.csr_matrix:
    """int32 counts, duplicates summed, column indices sorted: one layout per content."""
    if counts.dtype == np.int32 and counts.has_canonical_format:
        return counts
    counts = counts.astype(np.int32)
    counts.sum_duplicates()
    counts.sort_indices()
    return counts
