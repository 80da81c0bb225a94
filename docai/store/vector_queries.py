"""The reads a client makes of the window vectors: how much of a collection is embedded,
the embedding model's row, whether its HNSW index exists, and the chunks nearest a question.

As `docai.store.queries`: every value a parameter or a quoted literal, each read inside the
caller's transaction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from docai.store.schema import hnsw_index_name

# Nearest windows read for each chunk the whole-collection ranking asks for (a chunk has
# about 2.6 windows; others are another collection's, or the same chunk's).
WINDOWS_PER_CHUNK = 4
# pgvector's bounds of `hnsw.ef_search`, the HNSW search list (and so its most rows).
DEFAULT_EF_SEARCH = 40
MAX_EF_SEARCH = 1000


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
                   query: np.ndarray, limit: int) -> list[int]:
    """The ids of the `limit` chunks of `generation` whose best window is nearest `query`
    (inner product of unit vectors), best first. `embedder`: its id and dimension.

    The nearest windows come first, `WINDOWS_PER_CHUNK` for each chunk asked (what the HNSW
    index serves, where there is one; exact otherwise), then their chunks in the order of
    each one's best window: exactly the nearest chunks while those windows hold `limit`
    chunks of this generation (a window's vector is shared by every collection that has
    its text)."""
    embedder_id, dimension = embedder
    windows = WINDOWS_PER_CHUNK * limit
    # An HNSW scan returns at most `hnsw.ef_search` rows (pgvector's default: 40), far fewer
    # than the windows asked for: the search list is widened for this query's transaction.
    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)",
                 (str(min(MAX_EF_SEARCH, max(DEFAULT_EF_SEARCH, windows))),))
    literal = "[" + ",".join(f"{value:.8g}" for value in query.tolist()) + "]"
    statement = sql.SQL(
        "SELECT w.chunk_id FROM (SELECT key, embedding::halfvec({d}) <#> %s::halfvec({d}) "
        "AS distance FROM docai_vectors WHERE embedder_id = {e} ORDER BY "
        "embedding::halfvec({d}) <#> %s::halfvec({d}) LIMIT %s) near "
        "JOIN docai_windows w ON w.key = near.key AND w.generation_id = %s "
        "GROUP BY w.chunk_id ORDER BY min(near.distance), w.chunk_id LIMIT %s"
    ).format(d=sql.Literal(int(dimension)), e=sql.Literal(int(embedder_id)))
    return [int(row[0]) for row in conn.execute(
        statement, (literal, literal, windows, generation, limit))]


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
