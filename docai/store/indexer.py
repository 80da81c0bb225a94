"""`docai index --store`: the docs folder into a collection of the shared store.

Incremental by checksum, as the local index: an unchanged file is not touched, a changed one
is re-read, a deleted one removed. Each file's rows (`docai.store.file_rows`) change in one
transaction, so a reader sees the old or the new version of every file, never a mix, and a
kill -9 loses only the file in flight.

One indexer per collection at a time: a session advisory lock on the collection's name,
held from the first file to the end of the embedding pass (`then`). A second indexer
*waits* for it (saying so once): a CI job and a cron that start together both finish, and
the lock goes with the connection, so a killed indexer never leaves it held.

A rebuild fills a generation the readers do not see and switches to it in one UPDATE
(`docai.store.generations`); the rows no collection refers to any more are pruned at the
end (`docai.store.upkeep`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import psycopg

from docai import messages
from docai.index.build import parse_all
from docai.index.workers import parse_file
from docai.loading import scan, source_name
from docai.loading.discover import Unread
from docai.records import Progress, Skipped
from docai.redaction import redact_url
from docai.settings import Settings
from docai.store import schema, upkeep
from docai.store.connection import connect, translated
from docai.store.file_rows import remove_file, write_file
from docai.store.generations import (
    Versions,
    collect_orphans,
    drop_generation,
    one,
)
from docai.store.generations import (
    target as target_generation,
)

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
    ignored: int = 0  # files and folders the ignore rules left out
    unread: tuple[Unread, ...] = ()  # what the walk left out by design, as `docai index` counts


def lock_key_sql() -> str:
    """The advisory lock key of a collection, computed by the server from its name."""
    return "hashtextextended('docai collection ' || %s, 0)"


def index_collection(
    settings: Settings,
    collection: str,
    *,
    progress: Progress | None = None,
    say: Callable[[str], None] = lambda line: None,
    then: Callable[[psycopg.Connection[Any], StoreIndexReport], None] | None = None,
) -> StoreIndexReport:
    """Bring `collection` up to date with `settings.docs_dir`, then run `then` (the
    embedding pass) with the collection still locked; StoreError on failure."""
    url = settings.store or ""
    started = time.monotonic()
    conn = connect(url, autocommit=True)  # each `transaction()` below is one of its own
    try:
        with translated(url):
            schema.ensure(conn, url)
            conn.commit()
            hold_collection_lock(conn, collection, url, say)
            upkeep.hold_shared_rows(conn)
            report = _index(conn, settings, collection, progress, say, started)
            if then is not None:
                then(conn, report)
            upkeep.prune_shared_rows(conn)
            return report
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
        collection_id, current, building = one(conn, (
            "SELECT id, current_generation, building_generation FROM docai_collections "
            "WHERE name = %s"), (name,))
    if orphans := collect_orphans(conn, collection_id, current, building):
        say(messages.STORE_ORPHANS_DROPPED.format(count=orphans, name=name))
    target, resumed = target_generation(conn, collection_id, current, building, versions,
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
                    remove_file(conn, target, old[0])
            continue
        counts["changed" if old else "new"] += 1
        with conn.transaction():
            if old is not None:
                remove_file(conn, target, old[0])
            write_file(conn, target, parsed, terms)
    gone = [known[source][0] for source in sorted(set(known) - set(sources))]
    for file_id in gone:
        with conn.transaction():
            remove_file(conn, target, file_id)
    upkeep.add_missing_windows(conn, target)
    if not _packed(conn, target):  # any file written or removed moved the revision on
        with conn.transaction():
            upkeep.write_packs(conn, target)
    if target != current:
        with conn.transaction():  # the switch: readers go from the old generation to this
            conn.execute("UPDATE docai_collections SET current_generation = %s, "
                         "building_generation = NULL WHERE id = %s", (target, collection_id))
        if current is not None:
            drop_generation(conn, current)
            say(messages.STORE_REBUILT)
    upkeep.analyze(conn)
    files, chunks = one(conn, (
        "SELECT (SELECT count(*) FROM docai_files WHERE generation_id = %s), chunks "
        "FROM docai_generations WHERE id = %s"), (target, target))
    conn.commit()
    return StoreIndexReport(
        files=int(files), new=counts["new"], changed=counts["changed"], removed=len(gone),
        unchanged=counts["unchanged"], chunks=int(chunks), skipped=tuple(skipped),
        rebuilt=target != current, resumed=resumed, seconds=time.monotonic() - started,
        ignored=found.ignored, unread=found.unread)


def _packed(conn: psycopg.Connection[Any], generation: int) -> bool:
    """Whether the generation's packs are those of its rows now (and its languages, which
    an older docai did not write, are written)."""
    (packed,) = one(conn, "SELECT packed_revision IS NOT DISTINCT FROM revision AND "
                    "languages IS NOT NULL FROM docai_generations WHERE id = %s", (generation,))
    conn.commit()
    return bool(packed)
