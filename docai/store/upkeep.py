"""What an indexing run (or a drop) does besides a collection's files: its packs, the
window rows an older docai did not write, and the rows nothing refers to any more.

Terms and window vectors are shared by every collection (keyed by their text), so they can
be pruned only while no indexer is writing: one could be about to refer to a term id it
read earlier, or to a vector it found stored. Every indexer and drop holds a *shared*
advisory lock on `SHARED_ROWS_KEY` while it runs; at its end it lets go and prunes only if
it then gets the lock alone (`pg_try_advisory_lock`), so the last run to finish prunes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from docai.store import languages, packs
from docai.store.arrays import numpy_cursor
from docai.store.file_rows import write_windows

# docai's arbitrary constant for the shared rows' lock (as `schema.SCHEMA_LOCK_KEY`).
SHARED_ROWS_KEY = 0x646F6361_69000002


def hold_shared_rows(conn: psycopg.Connection[Any]) -> None:
    """Held by the session while it writes: no prune runs meanwhile."""
    conn.execute("SELECT pg_advisory_lock_shared(%s)", (SHARED_ROWS_KEY,))
    conn.commit()


def prune_shared_rows(conn: psycopg.Connection[Any]) -> bool:
    """The terms no collection holds and the vectors no window row refers to, deleted when
    no other indexer runs (True when pruned). Gives up the session's shared hold."""
    conn.execute("SELECT pg_advisory_unlock_shared(%s)", (SHARED_ROWS_KEY,))
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (SHARED_ROWS_KEY,)).fetchone()
    conn.commit()
    if not row or not row[0]:
        return False
    try:
        with conn.transaction():
            conn.execute("DELETE FROM docai_terms t WHERE NOT EXISTS ("
                         "SELECT 1 FROM docai_term_stats s WHERE s.term_id = t.id)")
            conn.execute("DELETE FROM docai_vectors v WHERE NOT EXISTS ("
                         "SELECT 1 FROM docai_windows w WHERE w.key = v.key)")
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SHARED_ROWS_KEY,))
        conn.commit()
    return True


def add_missing_windows(conn: psycopg.Connection[Any], generation: int) -> None:
    """Window rows for the chunks that have none (written by a docai that wrote them only
    when embedding), in one transaction."""
    with conn.transaction():
        missing = conn.execute(
            "SELECT c.id, c.text FROM docai_chunks c WHERE c.generation_id = %s AND NOT "
            "EXISTS (SELECT 1 FROM docai_windows w WHERE w.chunk_id = c.id)",
            (generation,)).fetchall()
        if missing:
            write_windows(conn, generation, ((int(i), text) for i, text in missing))


def write_packs(conn: psycopg.Connection[Any], generation: int) -> None:
    """Every term's postings packed, and each chunk's pack row and TF-IDF length under the
    collection's idf now (it changes with every file), in the caller's transaction: the
    generation is marked packed at the revision they describe (`docai.store.packs`)."""
    chunk_ids: list[int] = []
    keys: list[tuple[str, int]] = []
    vectors: list[tuple[np.ndarray, np.ndarray]] = []
    for chunk_id, source, ordinal, term_ids, counts in numpy_cursor(conn).execute(
            "SELECT id, source, ordinal, term_ids, term_counts FROM docai_chunks "
            "WHERE generation_id = %s", (generation,)):
        chunk_ids.append(int(chunk_id))
        keys.append((source, int(ordinal)))
        vectors.append((term_ids, counts))
    terms = {int(term_id): term for term_id, term in conn.execute(
        "SELECT t.id, t.term FROM docai_terms t JOIN docai_term_stats s ON s.term_id = t.id "
        "AND s.generation_id = %s WHERE s.df > 0", (generation,), binary=True)}
    packing = packs.pack(keys, vectors, terms)
    conn.execute("DELETE FROM docai_packs WHERE generation_id = %s", (generation,))
    with conn.cursor().copy("COPY docai_packs (generation_id, term_id, postings) "
                            "FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int4", "bytea"])
        for term_id, postings in packing.postings.items():
            copy.write_row((generation, term_id, postings))
    conn.execute("CREATE TEMPORARY TABLE docai_new_rows (id bigint, pack_row integer, "
                 "norm double precision) ON COMMIT DROP")
    with conn.cursor().copy("COPY docai_new_rows (id, pack_row, norm) "
                            "FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int4", "float8"])
        for row in zip(chunk_ids, packing.rows.tolist(), packing.norms.tolist(), strict=True):
            copy.write_row(row)
    conn.execute("UPDATE docai_chunks c SET pack_row = n.pack_row, norm = n.norm "
                 "FROM docai_new_rows n WHERE c.id = n.id")
    conn.execute("UPDATE docai_generations SET revision = revision + 1, "
                 "packed_revision = revision + 1, updated = now() WHERE id = %s", (generation,))
    languages.write(conn, generation)


def analyze(conn: psycopg.Connection[Any]) -> None:
    """Fresh planner statistics (an indexer that does not own the tables may not: fine)."""
    try:
        with conn.transaction():
            conn.execute("ANALYZE docai_postings, docai_chunks, docai_term_stats, "
                         "docai_windows")
    except psycopg.errors.InsufficientPrivilege:
        pass
