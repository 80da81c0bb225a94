"""The indexer's embedding pass over the shared store (`docai index --embed --store`): every
window of a collection the store lacks a vector for, embedded once for the whole team, in
committed batches under the collection's lock, then the HNSW index built.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg

from docai import messages
from docai.index.vector_store import checksum
from docai.llm.errors import LLMError
from docai.records import Progress
from docai.retrieval.params import RetrievalParams
from docai.retrieval.windows import windows
from docai.settings import Settings
from docai.store import queries, schema, vector_queries
from docai.store.connection import translated
from docai.store.dense import store_embedder
from docai.store.errors import StoreError

# Chunks read, cut and embedded per transaction of the embedding pass.
EMBED_CHUNKS = 64
EMBED_BATCH = 16


# The chunks of a generation still to embed with one model: those without window rows, and
# those with a window this model has no vector for (another model embedded the collection
# first: the windows are the same texts for every model, the vectors are not).
UNEMBEDDED_CHUNKS = """
SELECT c.id, c.text FROM docai_chunks c
WHERE c.generation_id = %(generation)s AND c.id > %(after)s
  AND (NOT EXISTS (SELECT 1 FROM docai_windows w WHERE w.chunk_id = c.id)
       OR EXISTS (SELECT 1 FROM docai_windows w WHERE w.chunk_id = c.id AND NOT EXISTS (
           SELECT 1 FROM docai_vectors v
           WHERE v.embedder_id = %(embedder)s AND v.key = w.key)))
ORDER BY c.id LIMIT %(limit)s
"""


def embed_collection(conn: psycopg.Connection[Any], settings: Settings, name: str,
                     say: Callable[[str], None], progress: Progress) -> int:
    """Embed every window of the collection the store lacks a vector for (resumable: each
    batch is committed), on the indexer's connection and under its collection lock, so a
    second indexer or a drop waits for the pass; 1 when the embedder failed."""
    url = settings.store or ""
    embedder = store_embedder(settings, say)
    params = RetrievalParams()
    started = time.monotonic()
    embedded = 0
    try:
        with translated(url):
            generation = queries.current_generation(conn, name)
            if generation is None:
                raise StoreError(messages.STORE_EMPTY_COLLECTION.format(name=name, url=url))
            embedder_id: int | None = None
            dimension = 0
            if (row := vector_queries.embedder_row(conn, embedder.name)) is not None:
                embedder_id, dimension = row
            conn.commit()
            last = 0
            with progress(messages.DENSE_PROGRESS, generation.chunks, 0) as advance:
                while True:
                    batch = conn.execute(UNEMBEDDED_CHUNKS, {
                        "generation": generation.id, "after": last, "embedder": embedder_id,
                        "limit": EMBED_CHUNKS}).fetchall()
                    if not batch:
                        break
                    last = int(batch[-1][0])
                    texts = {checksum(t): t for _, text in batch
                             for t in windows(text, params.window_chars, params.window_overlap)}
                    have = set()
                    if embedder_id is not None:
                        have = {bytes(k).hex() for (k,) in conn.execute(
                            "SELECT key FROM docai_vectors WHERE embedder_id = %s AND "
                            "key = ANY(%s)", (embedder_id, [bytes.fromhex(k) for k in texts]))}
                    todo = [k for k in texts if k not in have]
                    vectors: list[tuple[str, np.ndarray]] = []
                    try:
                        for start in range(0, len(todo), EMBED_BATCH):
                            part = todo[start:start + EMBED_BATCH]
                            out = embedder.embed_passages([texts[k] for k in part])
                            vectors.extend(zip(part, np.asarray(out, dtype=np.float32),
                                               strict=True))
                    except LLMError as error:
                        say(messages.DENSE_FALLBACK.format(reason=error))
                        return 1
                    with conn.transaction():
                        if vectors and embedder_id is None:
                            dimension = len(vectors[0][1])
                            (embedder_id,) = conn.execute(
                                "INSERT INTO docai_embedders (name, dimension) VALUES (%s, %s) "
                                "ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
                                "RETURNING id", (embedder.name, dimension)).fetchone() or (0,)
                        for _key, vector in vectors:
                            if len(vector) != dimension:
                                raise StoreError(messages.STORE_EMBED_OTHER_DIMENSION.format(
                                    model=embedder.name, got=len(vector), expected=dimension))
                        _insert_vectors(conn, embedder_id, vectors)
                        pairs = [(chunk_id, bytes.fromhex(checksum(t))) for chunk_id, text in batch
                                 for t in windows(text, params.window_chars,
                                                  params.window_overlap)]
                        conn.execute(  # one statement (a pipeline's error would be logged raw)
                            "INSERT INTO docai_windows (generation_id, chunk_id, key) "
                            "SELECT %s, c, k FROM unnest(%s::bigint[], %s::bytea[]) AS u(c, k) "
                            "ON CONFLICT DO NOTHING",
                            (generation.id, [c for c, _ in pairs], [k for _, k in pairs]))
                    embedded += len(vectors)
                    advance(len(batch))
            if embedded:  # readers ask again whether the collection is ranked whole
                with conn.transaction():
                    _moved_on(conn, generation.id)
            if embedder_id is not None and settings.store_hnsw:
                with conn.transaction():
                    schema.ensure_hnsw(conn, embedder_id, dimension)
    finally:
        embedder.close()
    say(messages.STORE_EMBEDDED.format(windows=embedded, chunks=generation.chunks,
                                       seconds=time.monotonic() - started))
    return 0


def _insert_vectors(conn: psycopg.Connection[Any], embedder_id: int | None,
                    vectors: list[tuple[str, np.ndarray]]) -> None:
    if vectors:
        conn.execute(
            "INSERT INTO docai_vectors (embedder_id, key, embedding) SELECT %s, k, e::halfvec "
            "FROM unnest(%s::bytea[], %s::text[]) AS u(k, e) ON CONFLICT DO NOTHING",
            (embedder_id, [bytes.fromhex(k) for k, _ in vectors],
             [_literal(v) for _, v in vectors]))


def _moved_on(conn: psycopg.Connection[Any], generation: int) -> None:
    """The generation's revision moved on (its packs still current if they were): a
    reader's knowledge of how much of it is embedded is keyed by revision."""
    conn.execute(
        "UPDATE docai_generations SET packed_revision = CASE WHEN packed_revision = revision "
        "THEN revision + 1 ELSE packed_revision END, revision = revision + 1 WHERE id = %s",
        (generation,))


def _literal(vector: np.ndarray) -> str:
    """A vector as pgvector's text form, sent as a parameter."""
    return "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
