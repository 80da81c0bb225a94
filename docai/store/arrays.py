"""integer[] columns read straight into numpy arrays.

psycopg turns an integer[] into a Python list, one int object per element: the chunks' term
vectors a packing run reads are millions of them (a gigabyte and most of the run at 100k
chunks), and a question's candidates thousands. PostgreSQL's binary array format holds
each element as (length, big-endian value) after a small header, so numpy reads a whole
array as one strided view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
from psycopg.adapt import Loader

# Binary array header: dimensions, flags (1: holds NULLs), element type, then per
# dimension its size and lower bound.
_HEADER = 12
_PER_DIMENSION = 8


class IntegerArrayLoader(Loader):
    """A one-dimensional integer[] without NULLs (every array docai writes) as int32."""

    format = psycopg.pq.Format.BINARY

    def load(self, data: Any) -> np.ndarray:
        raw = bytes(data)
        dimensions = int.from_bytes(raw[0:4], "big")
        if dimensions == 0:
            return np.zeros(0, dtype=np.int32)
        if dimensions != 1 or int.from_bytes(raw[4:8], "big") & 1:
            raise ValueError("an integer[] of docai's holds one dimension and no NULL")
        values = np.frombuffer(raw, dtype=">i4", offset=_HEADER + _PER_DIMENSION)
        return values[1::2].astype(np.int32)


def numpy_cursor(conn: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
    """A binary cursor of `conn` that reads integer[] as numpy int32 arrays."""
    cursor = conn.cursor(binary=True)
    oid = conn.adapters.types["int4"].array_oid
    cursor.adapters.register_loader(oid, IntegerArrayLoader)
    return cursor
