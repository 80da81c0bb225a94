"""`StoreChunks`: the little of a collection's chunk table a store's client asks of it."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

import psycopg

from docai.records import Chunk
from docai.retrieval.crosslang import Texts
from docai.retrieval.search_index import SearchIndex
from docai.store import queries


class ChunkSource(Protocol):
    """What the chunk table reads through (`StoreIndex`)."""

    @property
    def generation_id(self) -> int: ...

    def __len__(self) -> int: ...

    def reading(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...

    def _refresh(self, conn: psycopg.Connection[Any]) -> queries.Generation: ...

    def last_candidates(self) -> SearchIndex | None: ...


class StoreChunks:
    """The little of `ChunkTable` the answerer and the REPL ask of a store: a file's first
    chunk, a chunk by its place (a resumed conversation's sources), how many files."""

    def __init__(self, index: ChunkSource) -> None:
        self._index = index

    def __len__(self) -> int:
        return len(self._index)

    @property
    def texts(self) -> Texts:
        """The texts of the last question's candidates, by the rows its rankings number
        (`verdict.rank` reads a bridged question's passages' languages from them)."""
        candidates = self._index.last_candidates()
        return [] if candidates is None else candidates.chunks.texts

    def first_of(self, source: str) -> Chunk | None:
        with self._index.reading() as conn:
            return queries.first_chunk(conn, self._index.generation_id, source)

    def chunk_at(self, source: str, ordinal: int) -> Chunk | None:
        with self._index.reading() as conn:
            return queries.chunk_at(conn, self._index.generation_id, source, ordinal)

    def file_count(self) -> int:
        """Files of the collection's current version (it may have changed since start)."""
        with self._index.reading() as conn:
            return queries.file_count(conn, self._index._refresh(conn).id)

    def outline(self) -> list[tuple[str, list[str]]]:
        """Each file with its chunks' heading paths, in chunk order (MCP's `list_sources`)."""
        with self._index.reading() as conn:
            return queries.file_outline(conn, self._index._refresh(conn).id)
