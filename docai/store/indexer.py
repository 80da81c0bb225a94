"""`docai index --store`: the docs folder into a collection of the shared store.

Incremental by checksum, as the local index: an unchanged file is not touched, a changed one
is re-read, a deleted one removed. Each file's rows (file, chunks, postings, document
frequencies, the collection's totals) change in one transaction, so a reader sees the old or
the new version of every file, never a mix, and a kill -9 loses only the file in flight.

One indexer per collection at a time: a session advisory lock on the collection's name. A
second indexer *waits* for it (saying so once): a CI job and a cron that start together both
finish, and the lock goes with the connection, so a killed indexer never leaves it held.

`--rebuild` or a new parser, chunker or analyser builds a generation the readers do not see
and switches to it in one UPDATE; the next run resumes an interrupted one, whatever its options.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import psycopg

from docai import messages
from docai.chunking import CHUNKER_VERSION
from docai.index.build import parse_all
from docai.index.workers import ParsedFile, parse_file
from docai.loading import PARSER_VERSION, scan, source_name
from docai.records import Progress, Skipped
from docai.redaction import redact_url
from docai.settings import Settings
from docai.store import packs, schema
from docai.store.arrays import numpy_cursor
from docai.store.connection import connect, translated
from docai.text.analysis import ANALYZER_VERSION

LOCK_POLL_S = 0.5


@dataclass(frozen=True, slots=True)
class StoreIndexReport:
    """What one `docai index --store` run did."""

    files: int
    new: int
    changed: int
    removed: int
    unchanged: int
    chunks: int
    skipped: tuple[Skipped, ...]
    rebuilt: bool
    resumed: bool
    seconds: float


@dataclass(frozen=True, slots=True)
class Versions:
    """What a generation's terms and chunks depend on: a generation made by other code is
    never extended, it is rebuilt."""

    parser: str
    chunker: str
    analyzer: str
    chunk_tokens: int
    chunk_overlap: int
    encoding: str

    @classmethod
    def of(cls, settings: Settings) -> Versions:
        chunking = settings.chunking
        return cls(PARSER_VERSION, CHUNKER_VERSION, ANALYZER_VERSION, chunking.max_tokens,
                   chunking.overlap_tokens, chunking.encoding)

    def as_row(self) -> tuple[object, ...]:
        return (self.parser, self.chunker, self.analyzer, self.chunk_tokens,
                self.chunk_overlap, self.encoding)


def lock_key_sql() -> str:
    """The advisory lock key of a collection, computed by the server from its name."""
    return "hashtextextended('docai collection ' || %s, 0)"


def index_collection(
    settings: Settings,
    collection: str,
    *,
    progress: Progress | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> StoreIndexReport:
    """Bring `collection` up to date with `settings.docs_dir`; StoreError on failure."""
    url = settings.store or ""
    started = time.monotonic()
    conn = connect(url, autocommit=True)  # each `transaction()` below is one of its own
    try:
        with translated(url):
            schema.ensure(conn, url)
            conn.commit()
            hold_collection_lock(conn, collection, url, say)
            return _index(conn, settings, collection, progress, say, started)
    finally:
        conn.close()


def hold_collection_lock(
    conn: psycopg.Connection[Any], name: str, url: str, say: Callable[[str], None]
) -> None:
    """The collection's advisory lock, held by the session until it closes; waits (saying
    so once) while another indexer holds it."""
    told = False
    while True:
        row = conn.execute(f"SELECT pg_try_advisory_lock({lock_key_sql()})", (name,)).fetchone()
        conn.commit()
        if row and row[0]:
            return
        if not told:
            say(messages.STORE_WAITING_FOR_LOCK.format(name=name, url=redact_url(url)))
            told = True
        time.sleep(LOCK_POLL_S)


def _index(
    conn: psycopg.Connection[Any], settings: Settings, name: str,
    progress: Progress | None, say: Callable[[str], None], started: float,
) -> StoreIndexReport:
    versions = Versions.of(settings)
    with conn.transaction():
        conn.execute("INSERT INTO docai_collections (name) VALUES (%s) "
                     "ON CONFLICT (name) DO NOTHING", (name,))
        collection_id, current, building = _one(conn, (
            "SELECT id, current_generation, building_generation FROM docai_collections "
            "WHERE name = %s"), (name,))
    if orphans := _collect_orphans(conn, collection_id, current, building):
        say(messages.STORE_ORPHANS_DROPPED.format(count=orphans, name=name))
    target, resumed = _target(conn, collection_id, current, building, versions,
                              settings.rebuild)
    if resumed:
        say(messages.STORE_RESUMED.format(name=name))
    known = {source: (file_id, sha256) for file_id, source, sha256 in conn.execute(
        "SELECT id, source, sha256 FROM docai_files WHERE generation_id = %s", (target,))}
    conn.commit()
    root, links = settings.docs_dir, settings.link_roots()
    found = scan(root, follow_links=settings.follow_links, use_gitignore=settings.use_gitignore,
                 link_roots=links)
    sources = [source_name(root, path) for path in found.files]
    counts = {"new": 0, "changed": 0, "unchanged": 0}
    skipped = list(found.skipped)
    terms: dict[str, int] = {}
    tasks = [(source, known[source][1] if source in known else None) for source in sources]
    work = partial(parse_file, root, settings.chunking, follow_links=settings.follow_links,
                   link_roots=links)
    for parsed in parse_all(work, tasks, progress):  # in worker processes, as the local build
        old = known.get(parsed.source)
        if parsed.reused:
            counts["unchanged"] += 1
            continue
        if parsed.skipped is not None or not parsed.chunks:
            if parsed.skipped is not None:
                skipped.append(parsed.skipped)
            if old is not None:
                with conn.transaction():
                    _remove_file(conn, target, old[0])
            continue
        counts["changed" if old else "new"] += 1
        with conn.transaction():
            if old is not None:
                _remove_file(conn, target, old[0])
            _write_file(conn, target, parsed, terms)
    gone = [known[source][0] for source in sorted(set(known) - set(sources))]
    for file_id in gone:
        with conn.transaction():
            _remove_file(conn, target, file_id)
    if not _packed(conn, target):  # any file written or removed moved the revision on
        with conn.transaction():
            _write_packs(conn, target)
    if target != current:
        with conn.transaction():  # the switch: readers go from the old generation to this
            conn.execute("UPDATE docai_collections SET current_generation = %s, "
                         "building_generation = NULL WHERE id = %s", (target, collection_id))
        if current is not None:
            _drop_generation(conn, current)
            say(messages.STORE_REBUILT)
    _analyze(conn)
    files, chunks = _one(conn, (
        "SELECT (SELECT count(*) FROM docai_files WHERE generation_id = %s), chunks "
        "FROM docai_generations WHERE id = %s"), (target, target))
    conn.commit()
    return StoreIndexReport(
        files=int(files), new=counts["new"], changed=counts["changed"], removed=len(gone),
        unchanged=counts["unchanged"], chunks=int(chunks), skipped=tuple(skipped),
        rebuilt=target != current, resumed=resumed, seconds=time.monotonic() - started)


def _target(
    conn: psycopg.Connection[Any], collection_id: int, current: int | None,
    building: int | None, versions: Versions, rebuild: bool,
) -> tuple[int, bool]:
    """The generation to fill, and whether it is an interrupted rebuild being resumed."""
    with conn.transaction():
        if building is not None:
            if _versions(conn, building) == versions:
                return building, True
            _drop_generation(conn, building)
        if current is not None and not rebuild and _versions(conn, current) == versions:
            return current, False
        (target,) = _one(conn, (
            "INSERT INTO docai_generations (collection_id, parser_version, chunker_version, "
            "analyzer_version, chunk_tokens, chunk_overlap, encoding) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id"),
            (collection_id, *versions.as_row()))
        conn.execute("UPDATE docai_collections SET building_generation = %s WHERE id = %s",
                     (target, collection_id))
        return int(target), False


def _collect_orphans(
    conn: psycopg.Connection[Any], collection_id: int, current: int | None,
    building: int | None,
) -> int:
    """Drop the collection's generations that are neither current nor being built: an
    indexer killed between the switch and the old generation's drop left one (under the
    collection's lock, so no other run is filling it). How many were dropped."""
    orphans = [int(row[0]) for row in conn.execute(
        "SELECT id FROM docai_generations WHERE collection_id = %s "
        "AND id IS DISTINCT FROM %s AND id IS DISTINCT FROM %s",
        (collection_id, current, building))]
    conn.commit()
    for generation in orphans:
        _drop_generation(conn, generation)
    return len(orphans)


def _versions(conn: psycopg.Connection[Any], generation: int) -> Versions | None:
    row = conn.execute(
        "SELECT parser_version, chunker_version, analyzer_version, chunk_tokens, "
        "chunk_overlap, encoding FROM docai_generations WHERE id = %s", (generation,)
    ).fetchone()
    return Versions(*row) if row else None


def _write_file(
    conn: psycopg.Connection[Any], generation: int, parsed: ParsedFile, terms: dict[str, int]
) -> None:
    """One file's rows: the file, its chunks, their postings, the frequencies and totals."""
    block = parsed.counts
    chunks = parsed.chunks
    term_ids = _term_ids(conn, block.vocabulary, terms)
    local_to_global = np.array([term_ids[t] for t in block.vocabulary], dtype=np.int64)
    lengths = [int(np.asarray(block.data[block.indptr[i]:block.indptr[i + 1]]).sum())
               for i in range(len(chunks))]
    (file_id,) = _one(conn, (
        "INSERT INTO docai_files (generation_id, source, sha256, size, tokens) "
        "VALUES (%s, %s, %s, %s, %s) RETURNING id"),
        (generation, parsed.source, parsed.sha256, parsed.size,
         sum(chunk.tokens for chunk in chunks)))
    chunk_ids = [int(row[0]) for row in conn.execute(
        "SELECT nextval(pg_get_serial_sequence('docai_chunks', 'id')) "
        "FROM generate_series(1, %s)", (len(chunks),))]
    with conn.cursor().copy(
        "COPY docai_chunks (id, generation_id, file_id, source, ordinal, heading_path, text, "
        "tokens, length, term_ids, term_counts, location_unit, location_number) FROM STDIN"
    ) as copy:
        for row, (chunk_id, chunk, length) in enumerate(zip(chunk_ids, chunks, lengths,
                                                            strict=True)):
            start, end = int(block.indptr[row]), int(block.indptr[row + 1])
            ids = local_to_global[block.indices[start:end]]
            order = np.argsort(ids)
            copy.write_row((chunk_id, generation, file_id, chunk.source, chunk.ordinal,
                            list(chunk.heading_path), chunk.text, chunk.tokens, length,
                            ids[order].tolist(), block.data[start:end][order].tolist(),
                            *((chunk.location.unit, chunk.location.number) if chunk.location
                              else (None, None))))
    frequency: dict[int, int] = {}
    with conn.cursor().copy(
        "COPY docai_postings (generation_id, term_id, chunk_id, file_id, count, length) "
        "FROM STDIN"
    ) as copy:
        for row, (chunk_id, length) in enumerate(zip(chunk_ids, lengths, strict=True)):
            start, end = int(block.indptr[row]), int(block.indptr[row + 1])
            for local, count in zip(block.indices[start:end].tolist(),
                                    block.data[start:end].tolist(), strict=True):
                term_id = int(local_to_global[local])
                frequency[term_id] = frequency.get(term_id, 0) + 1
                copy.write_row((generation, term_id, chunk_id, file_id, count, length))
    if frequency:
        conn.execute(
            "INSERT INTO docai_term_stats (generation_id, term_id, df) "
            "SELECT %s, t, n FROM unnest(%s::integer[], %s::integer[]) AS u(t, n) "
            "ON CONFLICT (generation_id, term_id) DO UPDATE "
            "SET df = docai_term_stats.df + EXCLUDED.df",
            (generation, list(frequency), list(frequency.values())))
    conn.execute(
        "UPDATE docai_generations SET chunks = chunks + %s, total_length = total_length + %s, "
        "revision = revision + 1 WHERE id = %s", (len(chunks), sum(lengths), generation))


def _term_ids(
    conn: psycopg.Connection[Any], vocabulary: tuple[str, ...], known: dict[str, int]
) -> dict[str, int]:
    """The ids of `vocabulary`'s terms, created when new (`known` caches them)."""
    new = [term for term in vocabulary if term not in known]
    if new:
        conn.execute("INSERT INTO docai_terms (term) SELECT unnest(%s::text[]) "
                     "ON CONFLICT (term) DO NOTHING", (new,))
        for term_id, term in conn.execute(
            "SELECT id, term FROM docai_terms WHERE term = ANY(%s)", (new,)
        ):
            known[term] = int(term_id)
    return known


def _remove_file(conn: psycopg.Connection[Any], generation: int, file_id: int) -> None:
    """A file's rows out, its terms' frequencies and the totals taken down with them."""
    conn.execute(
        "UPDATE docai_term_stats s SET df = s.df - d.n FROM ("
        "  SELECT term_id, count(*) AS n FROM docai_postings WHERE file_id = %s "
        "  GROUP BY term_id) d "
        "WHERE s.generation_id = %s AND s.term_id = d.term_id", (file_id, generation))
    conn.execute(
        "UPDATE docai_generations g SET chunks = g.chunks - c.n, "
        "total_length = g.total_length - c.total, revision = g.revision + 1 FROM ("
        "  SELECT count(*) AS n, coalesce(sum(length), 0) AS total FROM docai_chunks "
        "  WHERE file_id = %s) c WHERE g.id = %s", (file_id, generation))
    conn.execute("DELETE FROM docai_postings WHERE file_id = %s", (file_id,))
    conn.execute("DELETE FROM docai_files WHERE id = %s", (file_id,))


def _packed(conn: psycopg.Connection[Any], generation: int) -> bool:
    """Whether the generation's packs are those of its rows now."""
    (packed,) = _one(conn, "SELECT packed_revision IS NOT DISTINCT FROM revision "
                     "FROM docai_generations WHERE id = %s", (generation,))
    conn.commit()
    return bool(packed)


def _write_packs(conn: psycopg.Connection[Any], generation: int) -> None:
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


def _drop_generation(conn: psycopg.Connection[Any], generation: int) -> None:
    """A generation's rows out, in one transaction: table by table (its keys would take
    them too, schema 4, but row by row through the chunks)."""
    with conn.transaction():
        conn.execute("DELETE FROM docai_postings WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_packs WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_term_stats WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_windows WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_chunks WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_generations WHERE id = %s", (generation,))


def _analyze(conn: psycopg.Connection[Any]) -> None:
    """Fresh planner statistics (an indexer that does not own the tables may not: fine)."""
    try:
        with conn.transaction():
            conn.execute("ANALYZE docai_postings, docai_chunks, docai_term_stats")
    except psycopg.errors.InsufficientPrivilege:
        pass


def _one(conn: psycopg.Connection[Any], query: str, params: tuple[object, ...]) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None, query  # each query here returns exactly one row
    return row

