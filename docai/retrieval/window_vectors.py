"""The window vectors of one embedder: in memory, backed by its file in the vector store.

Why keyed by window text: embedding is the slow part (a few windows a second on a laptop
CPU), and a window whose text did not change has the same vector whatever chunk, file or
position it moved to. So an edited file costs only its changed windows, and an interrupted
pass resumes where it stopped.

Two threads may use one table (a background pass and a question's candidates), and
two processes may share one file: every change and every snapshot holds a lock, and a save
first merges what the file holds now, so another process's vectors are kept (two saves at
the very same moment can still drop some: they are then embedded again, never mixed up).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from docai import messages
from docai.errors import CacheError
from docai.index import vector_store


class WindowVectors:
    """Unit-length float32 vectors by window key (`vector_store.checksum` of the text)."""

    def __init__(self, path: Path, name: str, *, rebuild: bool = False) -> None:
        self.path = path
        self.name = name
        self.notices: list[str] = []  # pt-BR lines for the user: a store dropped or not saved
        self._lock = threading.Lock()
        self._table: dict[str, np.ndarray] = {}
        self._unsaved = 0
        self._merge = not rebuild  # --rebuild: what the file holds must not come back
        if rebuild:
            self.notices.append(self._dropped(messages.CACHE_REBUILD_ASKED))
        else:
            self._table = self._read()

    def __len__(self) -> int:
        return len(self._table)

    @property
    def dimension(self) -> int:
        with self._lock:
            return _dimension(self._table)

    def missing(self, keys: Iterable[str]) -> list[str]:
        """The keys of `keys` without a vector, each once, in order."""
        table = self._table
        return [key for key in dict.fromkeys(keys) if key not in table]

    def get(self, keys: Sequence[str]) -> np.ndarray:
        """The vectors of `keys` (every one must be present), one row each."""
        with self._lock:
            return np.stack([self._table[key] for key in keys])

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Remember new vectors (saved by the next `save`). Vectors of another size than the
        stored ones mean the model behind the name changed: the old ones are dropped."""
        with self._lock:
            known = _dimension(self._table)
            if known and vectors.shape[1] != known:
                self.notices.append(self._dropped(messages.DENSE_DIMENSION_CHANGED.format(
                    new=vectors.shape[1], old=known)))
                self._table = {}
            self._table.update(zip(keys, vectors.astype(np.float32, copy=False), strict=True))
            self._unsaved += len(keys)

    def save(self, keep: set[str] | None = None) -> None:
        """Write the table, merged with what the file holds now, atomically; only the keys
        in `keep` when given (vectors of windows that no longer exist are dropped). An
        unwritable folder becomes a notice: the vectors are computed again next time."""
        with self._lock:
            if not self._unsaved and keep is None:
                return
            on_disk = self._read(quiet=True) if self._merge else {}
            dimension = _dimension(self._table)
            merged = {k: v for k, v in on_disk.items() if v.shape[0] == dimension}
            merged.update(self._table)
            if keep is not None:
                merged = {key: vector for key, vector in merged.items() if key in keep}
            self._table = merged
            self._unsaved = 0
            keys = list(merged)
            stored = vector_store.StoredVectors(
                model=self.name,
                keys=np.asarray(keys, dtype=vector_store.CHECKSUM_DTYPE).reshape(-1),
                vectors=(np.stack([merged[key] for key in keys]) if keys
                         else np.zeros((0, dimension), dtype=np.float32)),
            )
        try:
            vector_store.save(self.path, stored)
        except OSError as error:
            self.notices.append(messages.DENSE_NOT_SAVED.format(
                path=self.path, reason=error.strerror or error))

    def _read(self, *, quiet: bool = False) -> dict[str, np.ndarray]:
        try:
            stored = vector_store.load(self.path, self.name)
        except CacheError as error:
            if not quiet:
                self.notices.append(self._dropped(str(error)))
            return {}
        return stored.by_key() if stored is not None else {}

    def _dropped(self, reason: str) -> str:
        return messages.DENSE_STORE_REBUILT.format(model=self.name, reason=reason)


def _dimension(table: dict[str, np.ndarray]) -> int:
    return int(next(iter(table.values())).shape[0]) if table else 0
