"""The window vectors of one embedder: in memory, backed by its file in the vector store.

Why keyed by window text: embedding is the slow part (a few windows a second on a laptop
CPU), and a window whose text did not change has the same vector whatever chunk, file or
position it moved to. So an edited file costs only its changed windows, and an interrupted
pass resumes where it stopped.

Two threads may use one table (a background pass and a question's candidates), and
two processes may share one file: every change and every snapshot holds a lock, and a save
first merges what the file holds now, so another process's vectors are kept (two saves at
the very same moment can still drop some: they are then embedded again, never mixed up).

Why two tables: the stored vectors (`vector_store.load`, mapped from the file: a question
reads only its candidates' rows) and the ones embedded since the last save, in a dict.
A save merges both with the file, writes one sorted file, and maps it again.

Completeness marks: a pass that found every window of a collection records the collection's
fingerprint in the file (`mark_complete`), and the next session skips walking its windows
(`is_complete_for`). A mark holds only while the file holds every vector it vouches for:
vectors are only ever added by a merge, so merged files keep every source's marks; a save
that drops vectors (a prune to one collection, damaged rows) keeps none but its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from docai import messages
from docai.errors import CacheError
from docai.index import vector_store
from docai.index.vector_store import StoredVectors, to_digests
from docai.llm.errors import LLMError


class DimensionChanged(LLMError):
    """The embedder made vectors of another size than earlier in this session."""


class WindowVectors:
    """Unit-length vectors by window key (`vector_store.checksum` of the text), read as
    float32."""

    def __init__(self, path: Path, name: str, *, rebuild: bool = False) -> None:
        self.path = path
        self.name = name
        self.notices: list[str] = []  # pt-BR lines for the user: a store dropped or not saved
        self.save_error: str | None = None  # why the last save failed (None: it did not)
        self._lock = threading.Lock()
        self._stored: StoredVectors | None = None  # as loaded (or last saved)
        self._stored_file: tuple[int, int, int] | None = None  # which file it was read from
        self._table: dict[str, np.ndarray] = {}  # embedded since the last save
        self._damaged: set[str] = set()  # stored rows found non-finite: embedded again
        self._damage_said = False  # the damage was reported (once a process)
        self._unsaved = 0
        self._new_mark: bytes | None = None  # a collection found complete, not yet saved
        self._merge = not rebuild  # --rebuild: what the file holds must not come back
        self._session_dimension: int | None = None  # the embedder's, once it has made one
        if rebuild:
            self.notices.append(self._dropped(messages.CACHE_REBUILD_ASKED))
        else:
            self._stored_file = vector_store.identity(path)
            self._stored = self._read()

    def __len__(self) -> int:
        with self._lock:
            stored = self._stored
            if stored is None:
                return len(self._table)
            new = [key for key in self._table if key not in self._damaged]
            known = int((stored.find(to_digests(new)) >= 0).sum()) if new else 0
            return len(stored.digests) - len(self._damaged) + len(new) - known

    @property
    def dimension(self) -> int:
        with self._lock:
            return self._dimension()

    def missing(self, keys: Iterable[str]) -> list[str]:
        """The keys of `keys` without a vector, each once, in order."""
        table = self._table
        stored = self._stored
        wanted = [key for key in dict.fromkeys(keys) if key not in table]
        if stored is None or not wanted:
            return wanted
        found = stored.find(to_digests(wanted)) >= 0
        return [key for key, known in zip(wanted, found.tolist(), strict=True)
                if not known or key in self._damaged]

    def get(self, keys: Sequence[str]) -> np.ndarray:
        """The vectors of `keys`, one row each. A key without a vector it can trust reads as
        zeros, and `missing` names it from then on, so the caller embeds it again: a stored
        row that is damaged (`vector_store.sound_rows`), or every stored row when the file
        was cut short under this process (the stored table is then dropped, with a notice)."""
        with self._lock:
            matrix = np.zeros((len(keys), self._dimension()), dtype=np.float32)
            in_table = [i for i, key in enumerate(keys) if key in self._table]
            for i in in_table:
                matrix[i] = self._table[keys[i]]
            stored_vectors = self._stored
            if stored_vectors is None or len(in_table) == len(keys):
                return matrix
            rows = np.full(len(keys), -1, dtype=np.int64)
            elsewhere = np.setdiff1d(np.arange(len(keys)), in_table)
            rows[elsewhere] = stored_vectors.find(to_digests([keys[i] for i in elsewhere]))
            stored = rows >= 0
            try:
                matrix[stored] = stored_vectors.rows(rows[stored])
            except CacheError as error:  # cut short: nothing it holds can be read any more
                self.notices.append(self._dropped(str(error)))
                self._stored, self._stored_file, self._damaged = None, None, set()
                return matrix
            bad = stored & ~vector_store.sound_rows(matrix)
            if bad.any():
                found = {keys[i] for i in np.flatnonzero(bad).tolist()}
                if not self._damage_said:  # once: a question and the whole-collection
                    self._damage_said = True  # scan may each read damaged rows
                    self.notices.append(self._dropped(
                        messages.DENSE_STORE_CORRUPT.format(file=self.path.name)))
                self._damaged.update(found)
                matrix[bad] = 0.0
            return matrix

    def settle_dimension(self, dimension: int) -> None:
        """Hear the size of a vector the embedder just made (`add` hears its own).

        The first one this session fixes the size: stored vectors of another size are
        dropped, since the model behind the name changed between sessions. A later one of
        another size means the embedder itself is not stable (a server that alternates
        models): `DimensionChanged`, so dense turns off instead of dropping, mid-question,
        the vectors it is ranking with."""
        with self._lock:
            self._settle(dimension)

    def is_complete_for(self, fingerprint: bytes) -> bool:
        """Whether a pass found every window of the collection `fingerprint` here."""
        with self._lock:
            if fingerprint == self._new_mark:
                return True
            stored = self._stored
            return stored is not None and fingerprint in stored.complete_for and not self._damaged

    def mark_complete(self, fingerprint: bytes) -> None:
        """Record (at the next `save`) that every window of `fingerprint` has its vector."""
        with self._lock:
            self._new_mark = fingerprint

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Remember new vectors (saved by the next `save`); their size is heard as
        `settle_dimension` hears it (raising `DimensionChanged`)."""
        with self._lock:
            self._settle(int(vectors.shape[1]))
            # Rounded as the file stores them: a question ranks the same before and after a
            # save, in this process and in the next.
            stored_like = vectors.astype(vector_store.VECTOR_DTYPE).astype(np.float32)
            self._table.update(zip(keys, stored_like, strict=True))
            self._damaged.difference_update(keys)
            self._unsaved += len(keys)

    def save(self, keep: set[str] | None = None) -> None:
        """Write the vectors, merged with what the file holds now, atomically; only the keys
        in `keep` when given (vectors of windows that no longer exist are dropped). An
        unwritable folder becomes a notice: the vectors are computed again next time."""
        with self._lock:
            if not self._unsaved and keep is None and self._new_mark is None:
                return
            merged = self._merged(keep)
            try:
                vector_store.save(self.path, merged)
            except OSError as error:
                self.save_error = str(error.strerror or error)
                self.notices.append(messages.DENSE_NOT_SAVED.format(
                    path=self.path, reason=self.save_error))
                return
            self.save_error = None
            self._stored_file = vector_store.identity(self.path)
            try:  # mapped again: the merged rows need not stay in memory
                reloaded = vector_store.load(self.path, self.name)
            except CacheError:
                reloaded = None
            if reloaded is None or (self._table and bool(
                    (reloaded.find(to_digests(list(self._table))) < 0).any())):
                # Another process replaced the file between our write and this read (its
                # merge read the file before ours landed): keep ours, merge theirs next time.
                reloaded, self._stored_file = merged, None
            self._stored = reloaded
            # Only now, so `missing` (which reads the table before the stored vectors, without
            # the lock) never sees a vector in neither.
            self._table, self._damaged, self._unsaved = {}, set(), 0
            self._new_mark = None

    def _merged(self, keep: set[str] | None) -> StoredVectors:
        """New vectors first, then the file's, then those loaded: the first of a key wins.
        Marks: every source's when nothing is dropped, else only the new one."""
        dimension = self._dimension()
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        marks = {self._new_mark} if self._new_mark is not None else set()
        if self._table:
            keys = list(self._table)
            parts.append((to_digests(keys), np.stack([self._table[k] for k in keys])))
        sources = []
        if self._merge and vector_store.identity(self.path) != self._stored_file:
            sources.append(self._read(quiet=True))  # another process saved since
        sources.append(self._stored)
        for source in sources:
            if source is not None and source.dimension == dimension:
                usable = np.ones(len(source.digests), dtype=bool)
                damaged = source.find(to_digests(sorted(self._damaged)))
                usable[damaged[damaged >= 0]] = False
                try:
                    parts.append((source.digests[usable], source.vectors[usable]))
                except CacheError:  # cut short since it was read: what it held is lost
                    continue
                if keep is None and not self._damaged:
                    marks.update(source.complete_for)
        digests = np.concatenate([d for d, _ in parts]) if parts else to_digests([])
        vectors = (np.concatenate([np.asarray(v, dtype=vector_store.VECTOR_DTYPE)
                                   for _, v in parts])
                   if parts else np.zeros((0, dimension), dtype=vector_store.VECTOR_DTYPE))
        digests, first = np.unique(digests, return_index=True)
        vectors = vectors[first]
        if keep is not None:
            kept = np.isin(digests, to_digests(sorted(keep)))
            digests, vectors = digests[kept], vectors[kept]
        return StoredVectors(self.name, digests, vectors, frozenset(marks))

    def _settle(self, dimension: int) -> None:
        if self._session_dimension is None:
            self._session_dimension = dimension
            known = self._dimension()
            if known and dimension != known:
                self.notices.append(self._dropped(messages.DENSE_DIMENSION_CHANGED.format(
                    new=dimension, old=known)))
                self._table, self._stored, self._damaged = {}, None, set()
                self._new_mark = None
        elif dimension != self._session_dimension:
            raise DimensionChanged(messages.DENSE_DIMENSION_UNSTABLE.format(
                model=self.name, new=dimension, old=self._session_dimension))

    def _dimension(self) -> int:
        if self._table:
            return int(next(iter(self._table.values())).shape[0])
        return self._stored.dimension if self._stored is not None else 0

    def _read(self, *, quiet: bool = False) -> StoredVectors | None:
        try:
            return vector_store.load(self.path, self.name)
        except CacheError as error:
            if not quiet:
                self.notices.append(self._dropped(str(error)))
            return None

    def _dropped(self, reason: str) -> str:
        return messages.DENSE_STORE_REBUILT.format(model=self.name, reason=reason)
