"""The store's tables, owned by docai and versioned (`SCHEMA_VERSION`).

One database holds several collections (doc sets); each collection points at its current
*generation*, a complete index of its files. Incremental indexing edits the current
generation one file per transaction; `--rebuild` (or a change of docai's parser, chunker or
analyser) fills a new generation the readers cannot see, then switches the collection to
it in one UPDATE. Every table is keyed by generation, so the switch is one row.

The lexical index is docai's own: the terms docai's analyser gives (`docai.text`), an
inverted index of (term, chunk, count) with each chunk's length, and per-term document
frequencies kept in step with every file change, so BM25 and TF-IDF are computed in SQL
from exactly the numbers the local index uses. Window vectors are pgvector `halfvec`s keyed
by the window text's checksum (a window that did not change keeps its vector), with one
HNSW index (inner product) per embedding model.

Version 2 adds the *packs*: each term's postings as one binary row (`docai.store.packs`),
rewritten with every chunk's TF-IDF length when an indexing run ends, so a question reads
its few terms' rows and is ranked by numpy as the local index ranks it, instead of the
database aggregating tens of thousands of posting rows.

A database written by another schema version is reported, never read: `check` raises. An
older one is upgraded in place by the indexer (`UPGRADES`, each step additive); a newer one
is left alone.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from docai import messages
from docai.redaction import redact_url
from docai.store.errors import StoreError

SCHEMA_VERSION = 6
# Serialises schema creation between processes (an arbitrary constant of docai's).
SCHEMA_LOCK_KEY = 0x646F6361_69000001

TABLES = """
CREATE TABLE docai_schema (
    version integer NOT NULL,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE docai_collections (
    id serial PRIMARY KEY,
    name text NOT NULL UNIQUE,
    current_generation bigint,
    building_generation bigint
);
CREATE TABLE docai_generations (
    id bigserial PRIMARY KEY,
    collection_id integer NOT NULL REFERENCES docai_collections ON DELETE CASCADE,
    parser_version text NOT NULL,
    chunker_version text NOT NULL,
    analyzer_version text NOT NULL,
    chunk_tokens integer NOT NULL,
    chunk_overlap integer NOT NULL,
    encoding text NOT NULL,
    chunks bigint NOT NULL DEFAULT 0,
    total_length bigint NOT NULL DEFAULT 0,
    revision bigint NOT NULL DEFAULT 0,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE docai_files (
    id bigserial PRIMARY KEY,
    generation_id bigint NOT NULL REFERENCES docai_generations ON DELETE CASCADE,
    source text COLLATE "C" NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    tokens bigint NOT NULL,
    UNIQUE (generation_id, source)
);
CREATE TABLE docai_chunks (
    id bigserial PRIMARY KEY,
    generation_id bigint NOT NULL,
    file_id bigint NOT NULL REFERENCES docai_files ON DELETE CASCADE,
    source text COLLATE "C" NOT NULL,
    ordinal integer NOT NULL,
    heading_path text[] NOT NULL,
    text text NOT NULL,
    tokens integer NOT NULL,
    length integer NOT NULL,
    norm double precision NOT NULL DEFAULT 1,
    -- the chunk's term vector (ids ascending, and their counts): its whole row of the
    -- inverted index in one read, for scoring it as a candidate
    term_ids integer[] NOT NULL,
    term_counts integer[] NOT NULL
);
CREATE INDEX docai_chunks_file ON docai_chunks (file_id);
CREATE INDEX docai_chunks_order ON docai_chunks (generation_id, source, ordinal);
CREATE TABLE docai_terms (
    id serial PRIMARY KEY,
    term text NOT NULL UNIQUE
);
CREATE TABLE docai_postings (
    generation_id bigint NOT NULL,
    term_id integer NOT NULL,
    chunk_id bigint NOT NULL,
    file_id bigint NOT NULL,
    count integer NOT NULL,
    length integer NOT NULL,
    PRIMARY KEY (generation_id, term_id, chunk_id)
);
CREATE INDEX docai_postings_chunk ON docai_postings (chunk_id);
CREATE INDEX docai_postings_file ON docai_postings (file_id);
CREATE TABLE docai_term_stats (
    generation_id bigint NOT NULL,
    term_id integer NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (generation_id, term_id)
);
CREATE TABLE docai_embedders (
    id serial PRIMARY KEY,
    name text NOT NULL UNIQUE,
    dimension integer NOT NULL
);
CREATE TABLE docai_vectors (
    embedder_id integer NOT NULL REFERENCES docai_embedders ON DELETE CASCADE,
    key bytea NOT NULL,
    embedding halfvec NOT NULL,
    PRIMARY KEY (embedder_id, key)
);
CREATE TABLE docai_windows (
    generation_id bigint NOT NULL,
    chunk_id bigint NOT NULL REFERENCES docai_chunks ON DELETE CASCADE,
    key bytea NOT NULL,
    PRIMARY KEY (chunk_id, key)
);
CREATE INDEX docai_windows_key ON docai_windows (key, generation_id);
"""

# From version N to N + 1. New databases get TABLES and then every step, so there is one
# path to the current schema.
UPGRADES = {
    1: """
ALTER TABLE docai_generations ADD COLUMN packed_revision bigint;
ALTER TABLE docai_chunks ADD COLUMN pack_row integer;
CREATE INDEX docai_chunks_pack_row ON docai_chunks (generation_id, pack_row);
-- one row per term of a generation: its postings, `docai.store.packs.POSTING` records in
-- pack-row order, stored uncompressed (they are numbers: compression gains little and
-- costs every read)
CREATE TABLE docai_packs (
    generation_id bigint NOT NULL,
    term_id integer NOT NULL,
    postings bytea NOT NULL,
    PRIMARY KEY (generation_id, term_id)
);
ALTER TABLE docai_packs ALTER COLUMN postings SET STORAGE EXTERNAL;
""",
    2: """
-- where each chunk starts in its file (a line, a page, a notebook cell), for citations
ALTER TABLE docai_chunks ADD COLUMN location_unit text;
ALTER TABLE docai_chunks ADD COLUMN location_number integer;
""",
    3: """
-- the generation's rows that were not keyed to it go with it (a dropped collection or
-- generation used to leave them): rows an older docai leaked are removed first
DELETE FROM docai_postings p WHERE NOT EXISTS (
    SELECT 1 FROM docai_generations g WHERE g.id = p.generation_id);
DELETE FROM docai_packs p WHERE NOT EXISTS (
    SELECT 1 FROM docai_generations g WHERE g.id = p.generation_id);
DELETE FROM docai_term_stats s WHERE NOT EXISTS (
    SELECT 1 FROM docai_generations g WHERE g.id = s.generation_id);
-- when an indexing run last changed the generation (`docai store list`)
ALTER TABLE docai_generations ADD COLUMN updated timestamptz NOT NULL DEFAULT now();
ALTER TABLE docai_postings ADD CONSTRAINT docai_postings_generation
    FOREIGN KEY (generation_id) REFERENCES docai_generations ON DELETE CASCADE;
ALTER TABLE docai_packs ADD CONSTRAINT docai_packs_generation
    FOREIGN KEY (generation_id) REFERENCES docai_generations ON DELETE CASCADE;
ALTER TABLE docai_term_stats ADD CONSTRAINT docai_term_stats_generation
    FOREIGN KEY (generation_id) REFERENCES docai_generations ON DELETE CASCADE;
""",
    4: """
-- a generation's windows in one index range: the nearest windows of one collection are
-- found among its own (`docai.store.vector_queries.read_windows`)
CREATE INDEX IF NOT EXISTS docai_windows_generation ON docai_windows (generation_id, key);
-- rows an older docai left behind: frequencies of terms no chunk holds, terms no
-- collection holds (vectors no window refers to are pruned by the next indexing run, which
-- first writes the window rows an older docai did not)
DELETE FROM docai_term_stats WHERE df <= 0;
DELETE FROM docai_terms t WHERE NOT EXISTS (
    SELECT 1 FROM docai_term_stats s WHERE s.term_id = t.id);
""",
    5: """
-- the collection's languages, sampled as the local index samples them, written with the
-- packs (`docai.store.languages`; NULL until the next indexing run packs the generation)
ALTER TABLE docai_generations ADD COLUMN IF NOT EXISTS languages text;
""",
}


def found_version(conn: psycopg.Connection[Any]) -> int | None:
    """The schema version the database holds (None: no docai schema)."""
    row = conn.execute("SELECT to_regclass('docai_schema') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    version = conn.execute("SELECT max(version) FROM docai_schema").fetchone()
    return int(version[0]) if version and version[0] is not None else None


def has_vector_extension(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()
    return bool(row and row[0])


def check(conn: psycopg.Connection[Any], url: str) -> None:
    """Raise a StoreError unless the database holds docai's schema of this version."""
    version = found_version(conn)
    if version is None:
        raise StoreError(messages.STORE_NO_SCHEMA.format(url=redact_url(url)))
    _check_version(version, url)


def _check_version(version: int, url: str) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(messages.STORE_NEWER_SCHEMA.format(
            url=redact_url(url), found=version, ours=SCHEMA_VERSION))
    if version < SCHEMA_VERSION:
        raise StoreError(messages.STORE_OLDER_SCHEMA.format(
            url=redact_url(url), found=version, ours=SCHEMA_VERSION))


def ensure(conn: psycopg.Connection[Any], url: str) -> None:
    """Create the schema when the database has none (the indexer does, once), under a lock
    so two indexers starting together create it once; check its version otherwise."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
        version = found_version(conn)
        if version is not None:
            if version < SCHEMA_VERSION and version in UPGRADES:
                _upgrade(conn, version)
                return
            _check_version(version, url)
            return
        if not has_vector_extension(conn):
            try:
                with conn.transaction():
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.errors.InsufficientPrivilege:
                raise StoreError(messages.STORE_NO_VECTOR.format(url=redact_url(url))) from None
        conn.execute(TABLES)
        _upgrade(conn, 1)


def _upgrade(conn: psycopg.Connection[Any], version: int) -> None:
    """From `version` to `SCHEMA_VERSION`, step by step, in the caller's transaction."""
    for step in range(version, SCHEMA_VERSION):
        conn.execute(UPGRADES[step])
    conn.execute("INSERT INTO docai_schema (version) VALUES (%s)", (SCHEMA_VERSION,))


def hnsw_index_name(embedder_id: int) -> str:
    return f"docai_vectors_hnsw_{int(embedder_id)}"


def ensure_hnsw(conn: psycopg.Connection[Any], embedder_id: int, dimension: int) -> None:
    """The HNSW index (inner product, unit vectors) over one embedder's vectors: a partial
    expression index, since each model has its own dimension. Both numbers come from the
    database and are quoted as literals: nothing a user typed reaches this DDL."""
    name = sql.Identifier(hnsw_index_name(embedder_id))
    conn.execute(sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON docai_vectors USING hnsw "
        "((embedding::halfvec({dimension})) halfvec_ip_ops) WHERE embedder_id = {embedder}"
    ).format(name=name, dimension=sql.Literal(int(dimension)),
             embedder=sql.Literal(int(embedder_id))))
