"""The reads a client makes, one function per question it asks the database.

Every value travels as a parameter; none is spliced into the SQL. Each runs inside the
caller's transaction (a client's are READ ONLY, REPEATABLE READ: one snapshot per question),
so what they return comes from one version of the collection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg

from docai.records import HEADING_SEPARATOR, LOCATION_UNITS, Chunk, Location
from docai.store.arrays import numpy_cursor
from docai.store.untrusted import clean_chunk, clean_text


@dataclass(frozen=True, slots=True)
class Generation:
    """The collection's current generation and its totals."""

    id: int
    chunks: int
    total_length: int
    revision: int
    analyzer_version: str
    packed: bool  # the packs are those of this revision (`docai.store.packs`)
    languages: str | None = None  # as `docai.store.languages` wrote them (JSON), if it did


def collection_names(conn: psycopg.Connection[Any]) -> list[str]:
    return [row[0] for row in conn.execute(
        "SELECT name FROM docai_collections WHERE current_generation IS NOT NULL ORDER BY name")]


def current_generation(conn: psycopg.Connection[Any], collection: str) -> Generation | None:
    row = conn.execute(
        "SELECT g.id, g.chunks, g.total_length, g.revision, g.analyzer_version, "
        "g.packed_revision IS NOT DISTINCT FROM g.revision, g.languages "
        "FROM docai_collections c JOIN docai_generations g ON g.id = c.current_generation "
        "WHERE c.name = %s", (collection,)).fetchone()
    return (Generation(int(row[0]), int(row[1]), int(row[2]), int(row[3]), row[4], bool(row[5]),
                       row[6]) if row else None)


def document_frequencies(
    conn: psycopg.Connection[Any], generation: int, terms: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """term -> (term id, chunks holding it), for the terms the collection holds."""
    return {term: (int(term_id), int(df)) for term_id, term, df in conn.execute(
        "SELECT t.id, t.term, s.df FROM docai_terms t JOIN docai_term_stats s "
        "ON s.term_id = t.id AND s.generation_id = %s WHERE t.term = ANY(%s) AND s.df > 0",
        (generation, list(terms)))}


# The collection's current generation and, in the same statement (one round trip, one
# snapshot), the question's terms with their frequencies and the packs of those it ranks by.
# A row with no term (the generation alone) when none of them is in the collection.
GENERATION_AND_PACKS = """
WITH g AS (
    SELECT g.id, g.chunks, g.total_length, g.revision, g.analyzer_version,
           g.packed_revision IS NOT DISTINCT FROM g.revision AS packed, g.languages
    FROM docai_collections c JOIN docai_generations g ON g.id = c.current_generation
    WHERE c.name = %(collection)s
), found AS (
    SELECT t.id, t.term, s.df,
           CASE WHEN t.term = ANY(%(ranked)s) AND g.packed THEN p.postings END AS postings
    FROM g JOIN docai_term_stats s ON s.generation_id = g.id AND s.df > 0
    JOIN docai_terms t ON t.id = s.term_id AND t.term = ANY(%(terms)s)
    LEFT JOIN docai_packs p ON p.generation_id = g.id AND p.term_id = t.id
)
SELECT g.id, g.chunks, g.total_length, g.revision, g.analyzer_version, g.packed,
       g.languages, found.id, found.term, found.df, found.postings
FROM g LEFT JOIN found ON true
"""


def generation_and_packs(
    conn: psycopg.Connection[Any], collection: str, terms: Sequence[str],
    ranked: Sequence[str],
) -> tuple[Generation | None, dict[str, tuple[int, int]], dict[str, tuple[int, bytes]]]:
    """`current_generation`, and `packed_terms` when its packs are current (the frequencies
    only otherwise), in one statement."""
    generation: Generation | None = None
    known: dict[str, tuple[int, int]] = {}
    packs: dict[str, tuple[int, bytes]] = {}
    for (gid, chunks, total, revision, analyzer, packed, languages, term_id, term, df,
         postings) in conn.execute(GENERATION_AND_PACKS, {
             "collection": collection, "terms": list(terms), "ranked": list(ranked)},
             binary=True):
        generation = Generation(int(gid), int(chunks), int(total), int(revision), analyzer,
                                bool(packed), languages)
        if term_id is None:
            continue
        known[term] = (int(term_id), int(df))
        if postings is not None:
            packs[term] = (int(df), bytes(postings))
    return generation, known, packs


CANDIDATES = """
WITH q AS (
    SELECT * FROM unnest(%(terms)s::integer[], %(bm25)s::float8[], %(tfidf)s::float8[])
        AS q(term_id, bm25_weight, tfidf_weight)
), scored AS (
    SELECT p.chunk_id,
           sum(q.bm25_weight * p.count * (%(k1)s + 1)
               / (p.count + %(k1)s * (1 - %(b)s + %(b)s * p.length / %(average)s))) AS bm25,
           sum(q.tfidf_weight * (1 + ln(p.count))) AS dot
    FROM docai_postings p JOIN q ON q.term_id = p.term_id
    WHERE p.generation_id = %(generation)s
    GROUP BY p.chunk_id
), ranked AS (
    SELECT s.chunk_id, s.bm25, s.dot / c.norm AS cosine, c.source, c.ordinal
    FROM scored s JOIN docai_chunks c ON c.id = s.chunk_id
)
(SELECT chunk_id FROM ranked ORDER BY bm25 DESC, source, ordinal LIMIT %(depth)s)
UNION
(SELECT chunk_id FROM ranked ORDER BY cosine DESC, source, ordinal LIMIT %(depth)s)
"""


def candidate_ids(
    conn: psycopg.Connection[Any], generation: int, term_ids: Sequence[int],
    bm25_weights: Sequence[float], tfidf_weights: Sequence[float], *,
    k1: float, b: float, average: float, depth: int,
) -> list[int]:
    """The chunks in the top `depth` by BM25 or by TF-IDF cosine (the question's terms with
    their weights; the cosine's question length left out: it changes no order)."""
    return [int(row[0]) for row in conn.execute(CANDIDATES, {
        "terms": list(term_ids), "bm25": list(bm25_weights), "tfidf": list(tfidf_weights),
        "k1": k1, "b": b, "average": average or 1.0, "generation": generation,
        "depth": depth})]


CANDIDATE_CHUNKS = """
SELECT id, source, ordinal, heading_path, text, tokens, location_unit, location_number,
term_ids, term_counts FROM docai_chunks WHERE id = ANY(%s)
"""
# Read outside a transaction, in the statement's own snapshot: the generation must still be
# at the revision the rows were chosen in (every change of its rows moves it on), else
# nothing is returned and the caller asks again in one snapshot.
CHUNKS_AT_ROWS = """
SELECT id, source, ordinal, heading_path, text, tokens, location_unit, location_number,
term_ids, term_counts, pack_row FROM docai_chunks WHERE generation_id = %(generation)s
AND pack_row = ANY(%(rows)s) AND EXISTS (SELECT 1 FROM docai_generations
WHERE id = %(generation)s AND revision = %(revision)s)
"""

# Terms read as three arrays in one row: a few thousand terms loaded in C, not as rows
# (each one a Python object and a call).
TERMS_BY_ID = """
SELECT coalesce(array_agg(t.id), '{}'), coalesce(array_agg(t.term), '{}'),
       coalesce(array_agg(s.df), '{}'),
       (SELECT revision FROM docai_generations WHERE id = %(generation)s)
FROM docai_terms t JOIN docai_term_stats s
ON s.term_id = t.id AND s.generation_id = %(generation)s WHERE t.id = ANY(%(ids)s)
"""


# The chunks at some pack rows and, on the first of them, those of their terms (ids, texts,
# document frequencies) whose ids are not set in the bitmap `held` (the terms the client
# holds: `TermCache.held`), found by the server from their term vectors: one statement.
# Read outside a transaction, it returns nothing unless the generation is still at the
# revision the rows were chosen in (every change of its rows moves it on).
CHUNKS_AND_TERMS = """
WITH c AS MATERIALIZED (
    SELECT id, source, ordinal, heading_path, text, tokens, location_unit, location_number,
           term_ids, term_counts, pack_row FROM docai_chunks
    WHERE generation_id = %(generation)s AND pack_row = ANY(%(rows)s)
      AND EXISTS (SELECT 1 FROM docai_generations
                  WHERE id = %(generation)s AND revision = %(revision)s)
), unheld AS MATERIALIZED (
    SELECT DISTINCT term_id FROM c, unnest(c.term_ids) AS term_id
    WHERE CASE WHEN term_id < 8 * length(%(held)s::bytea)
               THEN get_bit(%(held)s::bytea, term_id) = 0 ELSE true END
), t AS (
    SELECT array_agg(t.id) AS ids, array_agg(t.term) AS terms, array_agg(s.df) AS dfs
    FROM unheld u JOIN docai_terms t ON t.id = u.term_id JOIN docai_term_stats s
    ON s.term_id = t.id AND s.generation_id = %(generation)s
)
SELECT c.*, CASE WHEN c.pack_row = (SELECT min(pack_row) FROM c) THEN t.ids END,
       CASE WHEN c.pack_row = (SELECT min(pack_row) FROM c) THEN t.terms END,
       CASE WHEN c.pack_row = (SELECT min(pack_row) FROM c) THEN t.dfs END
FROM c CROSS JOIN t
"""


def candidate_chunks(
    conn: psycopg.Connection[Any], ids: Sequence[int]
) -> tuple[list[int], dict[int, Chunk], np.ndarray]:
    """The ids given, the chunks by id, and their every (chunk id, term id, count) as an
    int64 array of 3 columns."""
    if not ids:
        return [], {}, np.zeros((0, 3), dtype=np.int64)
    chunks, entries, _ = read_chunks(numpy_cursor(conn).execute(CANDIDATE_CHUNKS, (list(ids),)))
    return list(ids), chunks, entries


class RevisionMoved(Exception):
    """The generation changed between two statements read outside a transaction."""


def chunks_and_terms(
    conn: psycopg.Connection[Any], generation: Generation, rows: Sequence[int],
    held: bytes,
) -> tuple[tuple[list[int], dict[int, Chunk], np.ndarray], dict[int, tuple[str, int]]]:
    """As `candidate_chunks`, for the chunks at these pack rows (their ids in the order of
    `rows`), and each of their terms (text, document frequency) whose id is not set in the
    bitmap `held` (`TermCache.held`): one statement. KeyError when a row has no chunk;
    RevisionMoved when the generation is no longer at its revision."""
    found = numpy_cursor(conn).execute(CHUNKS_AND_TERMS, {
        "generation": generation.id, "rows": list(rows), "revision": generation.revision,
        "held": held}, binary=True).fetchall()
    if rows and not found and current_revision(conn, generation.id) != generation.revision:
        raise RevisionMoved
    terms: dict[int, tuple[str, int]] = {}
    for *_, ids, texts, frequencies in found:
        if ids is not None:
            terms = {int(term_id): (term, int(df))
                     for term_id, term, df in zip(ids.tolist(), texts, frequencies.tolist(),
                                                  strict=True)}
    chunks, entries, at_row = read_chunks(row[:-3] for row in found)
    return ([at_row[row] for row in rows], chunks, entries), terms


def current_revision(conn: psycopg.Connection[Any], generation: int) -> int | None:
    row = conn.execute("SELECT revision FROM docai_generations WHERE id = %s",
                       (generation,)).fetchone()
    return int(row[0]) if row else None


def read_chunks(
    found: Iterable[Sequence[Any]],
) -> tuple[dict[int, Chunk], np.ndarray, dict[int, int]]:
    chunks: dict[int, Chunk] = {}
    at_row: dict[int, int] = {}
    parts = []
    for (chunk_id, source, ordinal, heading, text, tokens, unit, number, term_ids, counts,
         *row) in found:
        chunks[int(chunk_id)] = clean_chunk(Chunk(
            source, tuple(heading), int(ordinal), text, int(tokens), stored_location(unit, number)))
        if row:
            at_row[int(row[0])] = int(chunk_id)
        parts.append((np.full(len(term_ids), chunk_id, dtype=np.int64),
                      term_ids.astype(np.int64), counts.astype(np.int64)))
    entries = (np.stack([np.concatenate(column) for column in zip(*parts, strict=True)], 1)
               if parts else np.zeros((0, 3), dtype=np.int64))
    return chunks, entries, at_row


def terms_by_id(
    conn: psycopg.Connection[Any], generation: Generation, term_ids: Sequence[int]
) -> dict[int, tuple[str, int]]:
    """Each term's (text, document frequency) by id, for the terms the generation holds;
    RevisionMoved when it is no longer at its revision."""
    if not term_ids:
        return {}
    row = conn.execute(TERMS_BY_ID, {"generation": generation.id, "ids": list(term_ids)},
                       binary=True).fetchone()
    ids, texts, frequencies, revision = row if row else ([], [], [], None)
    if revision != generation.revision:
        raise RevisionMoved
    return {int(term_id): (term, int(df))
            for term_id, term, df in zip(ids, texts, frequencies, strict=True)}


def chunks_holding_any(
    conn: psycopg.Connection[Any], generation: int, terms: Sequence[str]
) -> np.ndarray:
    """Ids of the chunks that hold any of `terms`, sorted."""
    row = conn.execute(
        "SELECT array_agg(DISTINCT p.chunk_id) FROM docai_postings p "
        "JOIN docai_terms t ON t.id = p.term_id WHERE p.generation_id = %s AND t.term = ANY(%s)",
        (generation, list(terms))).fetchone()
    return np.array(sorted(row[0] or ()) if row else (), dtype=np.int64)


def texts_with_files(
    conn: psycopg.Connection[Any], ids: Sequence[int]
) -> list[tuple[int, int, str]]:
    """(chunk id, file id, text) of the chunks."""
    return conn.execute("SELECT id, file_id, text FROM docai_chunks WHERE id = ANY(%s)",
                        (list(ids),)).fetchall()


def files_holding(
    conn: psycopg.Connection[Any], generation: int, terms: Sequence[str]
) -> list[tuple[int, str]]:
    """(file id, term) for each file holding each of `terms` in some chunk."""
    return conn.execute(
        "SELECT DISTINCT p.file_id, t.term FROM docai_postings p "
        "JOIN docai_terms t ON t.id = p.term_id WHERE p.generation_id = %s AND t.term = ANY(%s)",
        (generation, list(terms))).fetchall()


def files_by_id(
    conn: psycopg.Connection[Any], ids: Sequence[int]
) -> list[tuple[int, str, int]]:
    """(file id, source, tokens) of the files."""
    return conn.execute("SELECT id, source, tokens FROM docai_files WHERE id = ANY(%s)",
                        (list(ids),)).fetchall()


def first_chunk(conn: psycopg.Connection[Any], generation: int, source: str) -> Chunk | None:
    return _chunk(conn.execute(
        f"SELECT {_CHUNK_COLUMNS} FROM docai_chunks "
        "WHERE generation_id = %s AND source = %s ORDER BY ordinal LIMIT 1",
        (generation, source)).fetchone())


def chunk_at(conn: psycopg.Connection[Any], generation: int, source: str,
             ordinal: int) -> Chunk | None:
    return _chunk(conn.execute(
        f"SELECT {_CHUNK_COLUMNS} FROM docai_chunks "
        "WHERE generation_id = %s AND source = %s AND ordinal = %s",
        (generation, source, ordinal)).fetchone())


_CHUNK_COLUMNS = "source, heading_path, ordinal, text, tokens, location_unit, location_number"


def _chunk(row: tuple[Any, ...] | None) -> Chunk | None:
    if not row:
        return None
    return clean_chunk(Chunk(row[0], tuple(row[1]), int(row[2]), row[3], int(row[4]),
                             stored_location(row[5], row[6])))


def stored_location(unit: Any, number: Any) -> Location | None:
    """A chunk's stored location; a missing or malformed one (a foreign row) is none."""
    if unit not in LOCATION_UNITS or not isinstance(number, int) or number < 1:
        return None
    return Location(unit, number)


def file_count(conn: psycopg.Connection[Any], generation: int) -> int:
    row = conn.execute("SELECT count(*) FROM docai_files WHERE generation_id = %s",
                       (generation,)).fetchone()
    return int(row[0]) if row else 0


def file_chunk_texts(conn: psycopg.Connection[Any], generation: int, source: str) -> list[str]:
    return [row[0] for row in conn.execute(
        "SELECT text FROM docai_chunks WHERE generation_id = %s AND source = %s "
        "ORDER BY ordinal", (generation, source))]


def file_outline(conn: psycopg.Connection[Any], generation: int) -> list[tuple[str, list[str]]]:
    """Each file of the generation with its chunks' heading paths, in chunk order (for MCP's
    `list_sources`: one query, read once per call)."""
    rows = conn.execute(
        "SELECT source, heading_path FROM docai_chunks WHERE generation_id = %s "
        "ORDER BY source, ordinal", (generation,)).fetchall()
    outline: dict[str, list[str]] = {}
    for source, heading in rows:
        outline.setdefault(source, []).append(HEADING_SEPARATOR.join(
            clean_text(part) for part in heading))
    return list(outline.items())
