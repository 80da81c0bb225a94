"""The reads a client makes of the window vectors: how much of a collection is embedded,
the embedding model's row, whether its HNSW index exists, and the chunks nearest a question
with the window vectors a dense question is ranked by.

As `docai.store.queries`: every value a parameter or a quoted literal, each read inside the
caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from docai.store.schema import hnsw_index_name

# Nearest windows of the collection read for each chunk the whole-collection ranking asks
# for: first `FEW_WINDOWS_PER_CHUNK` (the HNSW scan's time grows with the windows it
# returns), then, when those hold too few chunks, `WINDOWS_PER_CHUNK` (a chunk has about
# 2.6 windows, and the nearest ones are often the same chunk's).
FEW_WINDOWS_PER_CHUNK = 1.5
WINDOWS_PER_CHUNK = 4
# The HNSW search list (pgvector's `hnsw.ef_search`, default 40). The iterative scan goes on
# past it until the windows asked for are found; a longer list explores more of the graph
# before the first rows: with 1.5 windows a chunk, 400 found as many of the exact nearest
# chunks as 100 did with 4 windows a chunk, in two thirds of the time (`make bench`,
# docs/benchmarks.md).
EF_SEARCH = 400
# Rows of a float32 matrix product computed together by BLAS: a row's bits can differ in
# the last few rows of a matrix, computed apart (`WindowRead.best`).
FULL_BLOCK = 16


def embedded_chunks(conn: psycopg.Connection[Any], generation: int, embedder: str) -> int:
    """Chunks every window of which has a vector of `embedder` (`docai index --embed`)."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT w.chunk_id FROM docai_windows w LEFT JOIN "
        "docai_vectors v ON v.key = w.key AND v.embedder_id = "
        "(SELECT id FROM docai_embedders WHERE name = %s) WHERE w.generation_id = %s "
        "GROUP BY w.chunk_id HAVING bool_and(v.key IS NOT NULL)) embedded",
        (embedder, generation)).fetchone()
    return int(row[0]) if row else 0


def read_windows(conn: psycopg.Connection[Any], generation: int, embedder: tuple[int, int],
                 query: np.ndarray, limit: int, *, rows: Sequence[int] = (),
                 ids: Sequence[int] = ()) -> WindowRead:
    """The `limit` chunks of `generation` whose best window is nearest `query` (inner
    product of unit vectors), and those at the pack `rows` or of the `ids`, each with its
    window vectors: one statement. `embedder`: its id and dimension.

    Only this generation's windows are looked at, inside the scan: the nearest
    `WINDOWS_PER_CHUNK * limit` of its windows (a window's vector is shared by every
    collection that has its text: filtering after a scan of every collection's vectors
    would return fewer chunks the more near-copies the database holds), then their chunks
    in the order of each one's best window. The planner picks the way: the generation's
    window rows (`docai_windows_generation`) and an exact sort of their distances, or the
    HNSW index walked in distance order with each window checked against the generation,
    which pgvector's iterative scan (`connection_settings`) carries on past its search list
    until the limit is met. The vectors come as pgvector's binary `halfvec`s, a chunk's
    joined in one value, so that the client scores them as the local index does."""
    embedder_id, dimension = embedder
    literal = "[" + ",".join(f"{value:.8g}" for value in query.tolist()) + "]"
    statement = sql.SQL(WINDOW_READ).format(d=sql.Literal(int(dimension)),
                                            e=sql.Literal(int(embedder_id)))
    found = conn.execute(statement, {
        "q": literal, "generation": generation, "few": round(FEW_WINDOWS_PER_CHUNK * limit),
        "windows": WINDOWS_PER_CHUNK * limit,
        "limit": limit, "rows": list(rows), "ids": list(ids)}, binary=True).fetchall()
    return WindowRead.of(found, int(dimension))


# The nearest chunks (`read_windows`) and the asked ones, each with its id, pack row, the
# distance of its best window when it is among the nearest, and every window's key and
# vector (each `halfvec_send` without its 4-byte header of dimension and a reserved word:
# big-endian halves, joined in the keys' order). The nearest windows are scanned for
# `few` first, and again for `windows` only when those hold fewer than `limit` chunks.
WINDOW_READ = """
WITH few AS MATERIALIZED (
    SELECT w.chunk_id, v.embedding::halfvec({d}) <#> %(q)s::halfvec({d}) AS distance
    FROM docai_vectors v JOIN docai_windows w
    ON w.key = v.key AND w.generation_id = %(generation)s WHERE v.embedder_id = {e}
    ORDER BY v.embedding::halfvec({d}) <#> %(q)s::halfvec({d}) LIMIT %(few)s
), enough AS MATERIALIZED (
    SELECT count(DISTINCT chunk_id) >= %(limit)s AS enough FROM few
), more AS MATERIALIZED (
    SELECT w.chunk_id, v.embedding::halfvec({d}) <#> %(q)s::halfvec({d}) AS distance
    FROM docai_vectors v JOIN docai_windows w
    ON w.key = v.key AND w.generation_id = %(generation)s
    WHERE v.embedder_id = {e} AND NOT (SELECT enough FROM enough)
    ORDER BY v.embedding::halfvec({d}) <#> %(q)s::halfvec({d}) LIMIT %(windows)s
), near AS MATERIALIZED (
    SELECT chunk_id, min(distance) AS distance FROM (
        SELECT * FROM few WHERE (SELECT enough FROM enough) UNION ALL SELECT * FROM more) found
    GROUP BY chunk_id ORDER BY min(distance), chunk_id LIMIT %(limit)s
), wanted AS (
    SELECT chunk_id FROM near
    UNION
    SELECT id FROM docai_chunks WHERE generation_id = %(generation)s AND pack_row = ANY(%(rows)s)
    UNION
    SELECT id FROM docai_chunks WHERE generation_id = %(generation)s AND id = ANY(%(ids)s)
)
SELECT c.id, c.pack_row, n.distance, wv.keys, wv.vectors
FROM wanted JOIN docai_chunks c ON c.id = wanted.chunk_id
LEFT JOIN near n ON n.chunk_id = c.id
CROSS JOIN LATERAL (
    SELECT array_agg(w.key ORDER BY w.key) AS keys,
           string_agg(substring(halfvec_send(v.embedding) FROM 5), ''::bytea
                      ORDER BY w.key) AS vectors
    FROM docai_windows w JOIN docai_vectors v ON v.key = w.key AND v.embedder_id = {e}
    WHERE w.chunk_id = c.id) wv
ORDER BY n.distance, c.pack_row
"""


@dataclass(frozen=True, slots=True, eq=False)
class WindowRead:
    """What `read_windows` found: per chunk (in the nearest's order, then the rest by pack
    row) its id, pack row and windows (`starts` into `keys` and the stacked `vectors`), and
    how many of the first are the nearest chunks."""

    ids: np.ndarray
    pack_rows: np.ndarray  # -1 for a chunk without one (the packs are being rewritten)
    nearest: int
    keys: list[str]  # hex, as the vector store names them
    vectors: np.ndarray  # float32, one row per window
    starts: np.ndarray  # where each chunk's windows begin

    @classmethod
    def of(cls, found: Sequence[Sequence[Any]], dimension: int) -> WindowRead:
        """A chunk without a vector is left out."""
        kept = [row for row in found if row[3]]
        keys = [bytes(key).hex() for row in kept for key in row[3]]
        raw = b"".join(bytes(row[4]) for row in kept)
        vectors = np.frombuffer(raw, dtype=">f2").astype(np.float32).reshape(-1, dimension)
        counts = [len(row[3]) for row in kept]
        return cls(np.array([int(row[0]) for row in kept], dtype=np.int64),
                   np.array([-1 if row[1] is None else int(row[1]) for row in kept],
                            dtype=np.int64),
                   sum(1 for row in kept if row[2] is not None), keys, vectors,
                   np.cumsum([0] + counts[:-1]).astype(np.int64))

    def best(self, query: np.ndarray, chunks: np.ndarray | None = None, *,
             padded: bool = False) -> np.ndarray:
        """The best window cosine with `query` of each chunk (positions in this read; all
        of them by default), computed as the local index computes it: float32 vectors of
        the stored halves, one matrix product over the chunks' windows in their order
        (`padded`: with zero rows after them, up to a multiple of `FULL_BLOCK`)."""
        chunks = np.arange(len(self.starts)) if chunks is None else chunks
        if len(chunks) == 0:
            return np.zeros(0, dtype=np.float32)
        ends = np.append(self.starts[1:], len(self.vectors))
        counts = ends[chunks] - self.starts[chunks]
        windows = np.concatenate([np.arange(self.starts[c], ends[c]) for c in chunks.tolist()])
        matrix = self.vectors[windows]
        if padded:
            matrix = np.concatenate([matrix, np.zeros(
                (-len(matrix) % FULL_BLOCK, matrix.shape[1]), dtype=np.float32)])
        return np.maximum.reduceat((matrix @ query)[: len(windows)],
                                   np.cumsum(counts) - counts)

    def by_key(self) -> dict[str, np.ndarray]:
        return dict(zip(self.keys, self.vectors, strict=True))


def connection_settings(conn: psycopg.Connection[Any]) -> None:
    """A reader's HNSW settings, once per connection (no statement per question): the
    search list `EF_SEARCH`, and iterative scans, so that a scan checked against one
    collection's windows goes on until it has the rows asked for (pgvector 0.8; an older
    one ignores the name, and its scan stops at the search list)."""
    conn.execute("SELECT set_config('hnsw.ef_search', %s, false), "
                 "set_config('hnsw.iterative_scan', 'relaxed_order', false)",
                 (str(EF_SEARCH),))


def embedder_row(conn: psycopg.Connection[Any], embedder: str) -> tuple[int, int] | None:
    """The embedder's id and dimension in the store, None when it embedded nothing there."""
    row = conn.execute("SELECT id, dimension FROM docai_embedders WHERE name = %s",
                       (embedder,)).fetchone()
    return (int(row[0]), int(row[1])) if row else None


def window_count(conn: psycopg.Connection[Any], generation: int) -> int:
    row = conn.execute("SELECT count(*) FROM docai_windows WHERE generation_id = %s",
                       (generation,)).fetchone()
    return int(row[0]) if row else 0


def has_hnsw(conn: psycopg.Connection[Any], embedder_id: int) -> bool:
    """Whether the embedder's vectors have their HNSW index (`schema.ensure_hnsw`)."""
    row = conn.execute("SELECT 1 FROM pg_indexes WHERE tablename = 'docai_vectors' AND "
                       "indexname = %s", (hnsw_index_name(embedder_id),)).fetchone()
    return row is not None
