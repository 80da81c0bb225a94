"""Term matrices for tests, counted and merged as the index stage does (`docai.index.counts`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from docai.index.counts import block_of, count_terms, merge
from docai.index.matrix import TermMatrix


def matrix_of(term_lists: Iterable[Sequence[str]]) -> TermMatrix:
    """The canonical counts of each list's terms, one row per list."""
    vocabulary, counts = merge([count_terms([list(terms) for terms in term_lists])])
    return TermMatrix(vocabulary, counts)


def stacked(matrices: Sequence[TermMatrix]) -> TermMatrix:
    """The rows of all `matrices` in order, merged as an incremental build merges files."""
    vocabulary, counts = merge([block_of(m.vocabulary, m.counts) for m in matrices])
    return TermMatrix(vocabulary, counts)


def with_unused_terms(matrix: TermMatrix, terms: Iterable[str]) -> TermMatrix:
    """`matrix` over the sorted union of its vocabulary and `terms`, which no row uses: the
    stale vocabulary a cache may keep after a file is removed."""
    vocabulary = tuple(sorted(set(matrix.vocabulary).union(terms)))
    column = {term: j for j, term in enumerate(vocabulary)}
    remap = np.array([column[term] for term in matrix.vocabulary], dtype=np.int32)
    counts = matrix.counts
    return TermMatrix(vocabulary, sp.csr_matrix(
        (counts.data, remap[counts.indices], counts.indptr), shape=(matrix.rows, len(vocabulary))
    ))
