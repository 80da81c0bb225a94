"""The reads a client makes of the window vectors: how much of a collection is embedded,
the embedding model's row, whether its HNSW index exists, and the chunks nearest a question.

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

from docai.records import Chunk
from docai.store import queries
from docai.store.arrays import numpy_cursor
from docai.store.schema import hnsw_index_name

# Nearest windows of the collection read for each chunk the whole-collection ranking asks
# for (a chunk has about 2.6 windows; the nearest ones are often the same chunk's).
WINDOWS_PER_CHUNK = 4
# The HNSW search list (pgvector's `hnsw.ef_search`, default 40). The iterative scan goes on
# past it until the windows asked for are found, so it sets recall, not the rows returned:
# measured by `make bench` (`hnsw_parity`, docs/benchmarks.md).
EF_SEARCH = 100


def embedded_chunks(conn: psycopg.Connection[Any], generation: int, embedder: str) -> int:
    """Chunks every window of which has a vector of `embedder` (`docai index --embed`)."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT w.chunk_id FROM docai_windows w LEFT JOIN "
        "docai_vectors v ON v.key = w.key AND v.embedder_id = "
        "(SELECT id FROM docai_embedders WHERE name = %s) WHERE w.generation_id = %s "
        "GROUP BY w.chunk_id HAVING bool_and(v.key IS NOT NULL)) embedded",
        (embedder, generation)).fetchone()
    return int(row[0]) if row else 0


def nearest_chunks(conn: psycopg.Connection[Any], generation: int, embedder: tuple[int, int],
                   query: np.ndarray, limit: int) -> list[tuple[int, int | None]]:
    """The ids and pack rows of the `limit` chunks of `generation` whose best window is
    nearest `query` (inner product of unit vectors), best first. `embedder`: its id and
    dimension.

    Only this generation's windows are looked at, inside the scan: the nearest
    `WINDOWS_PER_CHUNK * limit` of its windows (a window's vector is shared by every
    collection that has its text: filtering after a scan of every collection's vectors
    would return fewer chunks the more near-copies the database holds), then their chunks
    in the order of each one's best window. The planner picks the way: the generation's
    window rows (`docai_windows_generation`) and an exact sort of their distances, or the
    HNSW index walked in distance order with each window checked against the generation,
    which pgvector's iterative scan (`connection_settings`) carries on past its search list
    until the limit is met."""
    embedder_id, dimension = embedder
    literal = "[" + ",".join(f"{value:.8g}" for value in query.tolist()) + "]"
    statement = sql.SQL(
        "SELECT n.chunk_id, c.pack_row FROM (SELECT chunk_id, min(distance) AS distance "
        "FROM (SELECT w.chunk_id, v.embedding::halfvec({d}) <#> "
        "%(q)s::halfvec({d}) AS distance FROM docai_vectors v JOIN docai_windows w "
        "ON w.key = v.key AND w.generation_id = %(generation)s WHERE v.embedder_id = {e} "
        "ORDER BY v.embedding::halfvec({d}) <#> %(q)s::halfvec({d}) LIMIT %(windows)s) near "
        "GROUP BY chunk_id ORDER BY min(distance), chunk_id LIMIT %(limit)s) n "
        "JOIN docai_chunks c ON c.id = n.chunk_id ORDER BY n.distance, n.chunk_id"
    ).format(d=sql.Literal(int(dimension)), e=sql.Literal(int(embedder_id)))
    return [(int(chunk_id), None if row is None else int(row)) for chunk_id, row in conn.execute(
        statement, {"q": literal, "generation": generation,
                    "windows": WINDOWS_PER_CHUNK * limit, "limit": limit})]


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


@dataclass(frozen=True, slots=True)
class Prefetch:
    """What a dense question reads with its candidates: the pack rows of the collection's
    chunks nearest it (`nearest_chunks`, empty unless the collection is ranked whole) and
    the vectors of every window of every chunk read, by `embedder`."""

    question: str
    nearest: tuple[int, ...]
    embedder: str
    whole: bool


# As `queries.CHUNKS_AND_TERMS`, with each chunk's window keys and their vectors (pgvector's
# binary form, `halfvec_send`): one statement.
CHUNKS_TERMS_AND_VECTORS = """
WITH c AS MATERIALIZED (
    SELECT id, source, ordinal, heading_path, text, tokens, location_unit, location_number,
           term_ids, term_counts, pack_row FROM docai_chunks
    WHERE generation_id = %(generation)s
      AND pack_row = ANY(%(rows)s)
      AND EXISTS (SELECT 1 FROM docai_generations
                  WHERE id = %(generation)s AND revision = %(revision)s)
), t AS (
    SELECT array_agg(t.id) AS ids, array_agg(t.term) AS terms, array_agg(s.df) AS dfs
    FROM docai_terms t JOIN docai_term_stats s
    ON s.term_id = t.id AND s.generation_id = %(generation)s
    WHERE t.id IN (SELECT DISTINCT unnest(term_ids) FROM c WHERE pack_row = ANY(%(term_rows)s))
)
SELECT c.*, CASE WHEN c.id = (SELECT min(id) FROM c) THEN t.ids END,
       CASE WHEN c.id = (SELECT min(id) FROM c) THEN t.terms END,
       CASE WHEN c.id = (SELECT min(id) FROM c) THEN t.dfs END,
       wv.keys, wv.vectors
FROM c CROSS JOIN t LEFT JOIN LATERAL (
    SELECT array_agg(w.key) AS keys, array_agg(halfvec_send(v.embedding)) AS vectors
    FROM docai_windows w JOIN docai_vectors v ON v.key = w.key AND v.embedder_id =
        (SELECT id FROM docai_embedders WHERE name = %(embedder)s)
    WHERE w.chunk_id = c.id) wv ON true
"""
# pgvector's binary halfvec: its dimension and a reserved word, then big-endian halves.
_HALFVEC_HEADER = 4


def chunks_terms_and_vectors(
    conn: psycopg.Connection[Any], generation: queries.Generation, rows: Sequence[int],
    term_rows: Sequence[int], prefetch: Prefetch,
) -> tuple[tuple[list[int], dict[int, Chunk], np.ndarray], dict[int, tuple[str, int]],
           dict[str, np.ndarray]]:
    """`queries.chunks_and_terms` for the chunks at `rows` followed by the nearest ones
    they lack (the terms of those at `term_rows`), and every window vector of them (by key,
    hex). KeyError when a row has no chunk; RevisionMoved when the generation is no longer
    at its revision."""
    rows = list(dict.fromkeys([*rows, *prefetch.nearest]))
    found = numpy_cursor(conn).execute(CHUNKS_TERMS_AND_VECTORS, {
        "generation": generation.id, "rows": list(rows), "revision": generation.revision,
        "term_rows": list(term_rows), "embedder": prefetch.embedder},
        binary=True).fetchall()
    if not found and queries.current_revision(conn, generation.id) != generation.revision:
        raise queries.RevisionMoved
    terms: dict[int, tuple[str, int]] = {}
    vectors: dict[str, np.ndarray] = {}
    for *_, ids, texts, frequencies, keys, values in found:
        if ids is not None:
            terms = {int(term_id): (term, int(df))
                     for term_id, term, df in zip(ids.tolist(), texts, frequencies.tolist(),
                                                  strict=True)}
        for key, value in zip(keys or (), values or (), strict=True):
            vectors[bytes(key).hex()] = np.frombuffer(
                bytes(value), dtype=">f2", offset=_HALFVEC_HEADER).astype(np.float32)
    chunks, entries, at_row = queries.read_chunks(row[:11] for row in found)
    return ([at_row[row] for row in rows], chunks, entries), terms, vectors
