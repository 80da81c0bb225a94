"""What a team's admin asks of the store: its collections with their sizes, and dropping one.

Both run as the indexer role on the primary (dropping writes) and take the collection's
advisory lock, as an indexing run does, so a drop never races an indexer: it waits for a
running one to finish. A collection's rows go with it in one transaction through their
keys; the window vectors and terms no collection refers to any more go after it
(`docai.store.upkeep`: they are keyed by text and shared by every collection, so another
collection with the same text keeps them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

from docai import messages
from docai.redaction import redact_url
from docai.store import queries, schema, upkeep, vector_queries
from docai.store.connection import connect, translated
from docai.store.errors import StoreError
from docai.store.indexer import hold_collection_lock

# The tables holding a generation's rows, each with the column that names it. A
# collection's share of a table's size on disk is its share of the table's rows.
_GENERATION_TABLES = (
    ("docai_files", "generation_id"), ("docai_chunks", "generation_id"),
    ("docai_postings", "generation_id"), ("docai_packs", "generation_id"),
    ("docai_term_stats", "generation_id"), ("docai_windows", "generation_id"),
)


@dataclass(frozen=True, slots=True)
class CollectionSummary:
    """One collection as `docai store list` shows it."""

    name: str
    files: int
    chunks: int
    embedded: tuple[tuple[str, int], ...]  # (embedding model, chunks fully embedded)
    updated: datetime | None
    size_bytes: int  # its rows' share of docai's tables on disk, indexes included
    building: bool  # a rebuild is under way (or was interrupted)


@dataclass(frozen=True, slots=True)
class StoreSummary:
    collections: tuple[CollectionSummary, ...]
    vectors_bytes: int  # the window vectors, shared by every collection


def list_collections(url: str) -> StoreSummary:
    """Every collection of the store, with its current generation's figures."""
    conn = connect(url)
    try:
        with translated(url):
            conn.read_only = True
            schema.check(conn, url)
            sizes = _table_sizes(conn)
            embedders = conn.execute("SELECT name FROM docai_embedders ORDER BY name").fetchall()
            rows = conn.execute(
                "SELECT c.name, g.id, g.chunks, g.updated, c.building_generation IS NOT NULL "
                "FROM docai_collections c LEFT JOIN docai_generations g "
                "ON g.id = c.current_generation ORDER BY c.name").fetchall()
            found = []
            for name, generation, chunks, updated, building in rows:
                if generation is None:
                    found.append(CollectionSummary(name, 0, 0, (), None, 0, bool(building)))
                    continue
                embedded = tuple(
                    (embedder, vector_queries.embedded_chunks(conn, generation, embedder))
                    for (embedder,) in embedders)
                found.append(CollectionSummary(
                    name, queries.file_count(conn, generation), int(chunks),
                    tuple(item for item in embedded if item[1]), updated,
                    _generation_bytes(conn, generation, sizes), bool(building)))
            vectors = sizes.get("docai_vectors", (0, 0))[0]
            conn.rollback()
    finally:
        conn.close()
    return StoreSummary(tuple(found), vectors)


def collection_summary(url: str, name: str) -> CollectionSummary:
    """One collection's figures (`docai status --store`); StoreError when it does not exist."""
    summary = list_collections(url)
    for collection in summary.collections:
        if collection.name == name:
            return collection
    known = ", ".join(repr(c.name) for c in summary.collections)
    raise StoreError(messages.STORE_NO_COLLECTION.format(
        name=name, url=redact_url(url), known=known or messages.STORE_NO_COLLECTIONS))


def drop_collection(url: str, name: str, say: Callable[[str], None]) -> tuple[int, int]:
    """Delete the collection and every row of it, then the vectors no collection uses any
    more: (files, chunks) it held. StoreError when it does not exist."""
    conn = connect(url, autocommit=True)
    try:
        with translated(url):
            schema.check(conn, url)
            hold_collection_lock(conn, name, url, say)
            upkeep.hold_shared_rows(conn)
            with conn.transaction():
                row = conn.execute(
                    "SELECT c.id, coalesce(g.chunks, 0), (SELECT count(*) FROM docai_files f "
                    "WHERE f.generation_id = g.id) FROM docai_collections c "
                    "LEFT JOIN docai_generations g ON g.id = c.current_generation "
                    "WHERE c.name = %s", (name,)).fetchone()
                if row is None:
                    known = ", ".join(repr(n) for n in queries.collection_names(conn))
                    raise StoreError(messages.STORE_NO_COLLECTION.format(
                        name=name, url=redact_url(url),
                        known=known or messages.STORE_NO_COLLECTIONS))
                collection_id, chunks, files = row
                for table, column in _GENERATION_TABLES[::-1]:  # by generation, not row by row
                    conn.execute(sql.SQL(
                        "DELETE FROM {table} WHERE {column} IN (SELECT id FROM "
                        "docai_generations WHERE collection_id = %s)").format(
                            table=sql.Identifier(table),
                            column=sql.Identifier(column)), (collection_id,))
                conn.execute("DELETE FROM docai_collections WHERE id = %s", (collection_id,))
            upkeep.prune_shared_rows(conn)
    finally:
        conn.close()
    return int(files), int(chunks)


def _table_sizes(conn: psycopg.Connection[Any]) -> dict[str, tuple[int, int]]:
    """Each docai table's size on disk (indexes and TOAST included) and its row count."""
    sizes = {}
    for table in [t for t, _ in _GENERATION_TABLES] + ["docai_vectors"]:
        row = conn.execute(
            sql.SQL("SELECT pg_total_relation_size(%s::regclass), count(*) FROM {}")
            .format(sql.Identifier(table)), (table,)).fetchone()
        sizes[table] = (int(row[0]), int(row[1])) if row else (0, 0)
    return sizes


def _generation_bytes(conn: psycopg.Connection[Any], generation: int,
                      sizes: dict[str, tuple[int, int]]) -> int:
    total = 0
    for table, column in _GENERATION_TABLES:
        size, rows = sizes[table]
        if not rows:
            continue
        row = conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE {} = %s").format(
            sql.Identifier(table), sql.Identifier(column)),
            (generation,)).fetchone()
        total += size * (int(row[0]) if row else 0) // rows
    return total
