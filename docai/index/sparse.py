"""Sparse counts and weights in plain numpy: the little of scipy.sparse a search needs.

Why not scipy: importing `scipy.sparse` costs a warm `docai search` about 0.15 s (its
array-API layer imports half of numpy's submodules), more than the search itself, which
needs only row and column slices, row sums and one sparse matrix-vector product. Each
operation here adds floating-point numbers in the very order scipy's code does (said at
each), so scores stay bit-identical to those of scipy and of an index built with it.
Building the index still uses scipy and scikit-learn (`to_scipy`, `column_order`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class Csr:
    """Compressed sparse rows: row i holds `data[indptr[i]:indptr[i + 1]]` at the columns
    `indices[indptr[i]:indptr[i + 1]]`."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of(cls, matrix: Any) -> Csr:
        """A `Csr` of any scipy sparse matrix (or itself)."""
        if isinstance(matrix, Csr):
            return matrix
        rows = matrix.tocsr()
        return cls(rows.data, rows.indices, rows.indptr, (int(rows.shape[0]), int(rows.shape[1])))

    @classmethod
    def checked(
        cls, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: tuple[int, int]
    ) -> Csr:
        """The matrix of these arrays (as stored: int32 counts and columns, int64 offsets);
        ValueError when they do not form one (what scipy's full format check refuses)."""
        rows, width = shape
        if (data.dtype != np.int32 or indices.dtype != np.int32 or indptr.dtype != np.int64
                or data.ndim != 1 or indices.ndim != 1 or indptr.shape != (rows + 1,)):
            raise ValueError("arrays of the wrong type or shape")
        if indptr[0] != 0 or indptr[-1] != len(indices) or len(data) != len(indices):
            raise ValueError("row offsets do not match the entries")
        if np.any(np.diff(indptr) < 0):
            raise ValueError("row offsets decrease")
        if len(indices) and (indices.min() < 0 or indices.max() >= width):
            raise ValueError("column index out of range")
        return cls(data, indices, indptr, (rows, width))

    @property
    def nnz(self) -> int:
        return len(self.data)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def row_ids(self) -> np.ndarray:
        """The row of each stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int32), np.diff(self.indptr))

    def take_rows(self, rows: np.ndarray) -> Csr:
        """These rows, in this order (as `matrix[rows]`)."""
        starts, ends = self.indptr[rows], self.indptr[np.asarray(rows) + 1]
        positions = _ranges(starts, ends)
        indptr = np.zeros(len(starts) + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=indptr[1:])
        return Csr(self.data[positions], self.indices[positions], indptr,
                   (len(starts), self.shape[1]))

    def row_sums(self) -> np.ndarray:
        """Each row's sum, as scipy's `sum(axis=1)` adds it (`np.add.reduceat` per row)."""
        sums = np.zeros(self.shape[0], dtype=np.result_type(self.dtype, np.int64))
        nonempty = np.flatnonzero(np.diff(self.indptr))
        if len(nonempty):
            sums[nonempty] = np.add.reduceat(self.data, self.indptr[nonempty])
        return sums

    def is_canonical(self) -> bool:
        """int32 counts whose column indices increase strictly within each row."""
        if self.dtype != np.int32:
            return False
        steps = np.diff(self.indices.astype(np.int64))
        new_row = np.zeros(len(steps), dtype=bool)
        starts = self.indptr[1:-1]
        new_row[starts[(starts > 0) & (starts < self.nnz)] - 1] = True
        return bool(np.all((steps > 0) | new_row))

    def column_order(self) -> np.ndarray:
        """The entries in column-major order (rows ascending within a column): what scipy's
        `tocsc` does, by its C counting sort (numpy's stable argsort is 10x slower). For a
        matrix being built or rearranged: a stored index keeps its order (`cache`)."""
        import scipy.sparse as sp

        numbered = sp.csr_matrix(
            (np.arange(self.nnz, dtype=np.int64), self.indices, self.indptr), shape=self.shape
        )
        return numbered.tocsc().data

    def to_scipy(self) -> sp.csr_matrix:
        import scipy.sparse as sp

        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)


@dataclass(frozen=True, eq=False)
class Csc:
    """Compressed sparse columns: column j holds `data[indptr[j]:indptr[j + 1]]` at the rows
    `indices[indptr[j]:indptr[j + 1]]`, rows ascending."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of_rows(cls, rows: Csr, order: np.ndarray) -> Csc:
        """The column layout of `rows`, given its entries' column-major order
        (`Csr.column_order`, or the order stored with the counts)."""
        indptr = np.zeros(rows.shape[1] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows.indices, minlength=rows.shape[1]), out=indptr[1:])
        return cls(rows.data[order], rows.row_ids()[order], indptr, rows.shape)

    @classmethod
    def empty(cls, shape: tuple[int, int]) -> Csc:
        return cls(np.zeros(0), np.zeros(0, dtype=np.int32),
                   np.zeros(shape[1] + 1, dtype=np.int64), shape)

    def with_data(self, data: np.ndarray) -> Csc:
        """The same entries with other values (index arrays shared, not copied)."""
        return Csc(data, self.indices, self.indptr, self.shape)

    def column_rows(self, columns: np.ndarray) -> np.ndarray:
        """The rows of the entries of `columns`, column after column."""
        return self.indices[_ranges(self.indptr[columns], self.indptr[columns + 1])]

    def weighted_sum(self, columns: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """`matrix[:, columns] @ weights`, one value per row, summed as scipy's `csc_matvec`
        sums it: from 0, column after column in the given order, `data * weight` each."""
        starts, ends = self.indptr[columns], self.indptr[columns + 1]
        positions = _ranges(starts, ends)
        products = self.data[positions] * np.repeat(weights, ends - starts)
        return np.bincount(self.indices[positions], weights=products, minlength=self.shape[0])

    def to_scipy(self) -> sp.csc_matrix:
        import scipy.sparse as sp

        return sp.csc_matrix((self.data, self.indices, self.indptr), shape=self.shape)


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The positions start..end-1 of each (start, end), one range after the other."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift
