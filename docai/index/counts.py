"""Term counts as CSR blocks: one per parsed file, merged into one canonical matrix.

A block carries its own (first-seen) vocabulary, so a worker counts a file without knowing
any other file's terms. Canonical means: vocabulary sorted, no term without a count, column
indices sorted per row. Both a full build and an incremental one go through `merge`, so they
yield the very same matrix (same rows, same columns), and therefore the same IDF and the
same search results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from docai.index.sparse import Csr


@dataclass(frozen=True, slots=True)
class CountBlock:
    """Term counts of some chunks: row i of (data, indices, indptr) counts terms of chunk i."""

    vocabulary: tuple[str, ...]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


def count_terms(term_lists: list[list[str]]) -> CountBlock:
    """Count each chunk's terms into a CSR block with its own (first-seen) vocabulary."""
    ids: dict[str, int] = {}
    data: list[int] = []
    indices: list[int] = []
    indptr = [0]
    for terms in term_lists:
        for term, count in Counter(terms).items():
            indices.append(ids.setdefault(term, len(ids)))
            data.append(count)
        indptr.append(len(indices))
    return CountBlock(
        vocabulary=tuple(ids),
        data=np.asarray(data, dtype=np.int32),
        indices=np.asarray(indices, dtype=np.int32),
        indptr=np.asarray(indptr, dtype=np.int64),
    )


def block_of(vocabulary: Sequence[str], counts: Csr) -> CountBlock:
    """View a stored matrix (e.g. the reused rows of the cache) as one block."""
    return CountBlock(
        vocabulary=tuple(vocabulary),
        data=counts.data.astype(np.int32, copy=False),
        indices=counts.indices.astype(np.int32, copy=False),
        indptr=counts.indptr.astype(np.int64, copy=False),
    )


def merge(blocks: Sequence[CountBlock]) -> tuple[tuple[str, ...], Csr]:
    """Stack the blocks' rows in order over their union vocabulary, in canonical form."""
    ids: dict[str, int] = {}
    indices: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    indptr: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    nnz = 0
    for block in blocks:
        local = np.fromiter(
            (ids.setdefault(term, len(ids)) for term in block.vocabulary),
            dtype=np.int64,
            count=len(block.vocabulary),
        )
        indices.append(local[block.indices])
        indptr.append(block.indptr[1:] + nnz)
        nnz += int(block.indptr[-1])
    data = np.concatenate([np.zeros(0, dtype=np.int32), *(block.data for block in blocks)])
    flat_indices = np.concatenate(indices)
    terms = list(ids)
    used = np.flatnonzero(np.bincount(flat_indices, minlength=len(terms)))
    order = sorted(used.tolist(), key=terms.__getitem__)
    new_id = np.zeros(len(terms), dtype=np.int32)
    new_id[order] = np.arange(len(order), dtype=np.int32)
    all_indptr = np.concatenate(indptr)
    matrix = sp.csr_matrix(
        (data, new_id[flat_indices], all_indptr), shape=(len(all_indptr) - 1, len(order))
    )
    matrix.sort_indices()
    return tuple(terms[i] for i in order), Csr.of(matrix)
