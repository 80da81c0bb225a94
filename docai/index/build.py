"""build_index: the stored index of a docs folder, reusing the on-disk cache wherever it can.

What can be reused is decided first (`docai.index.reuse.survey`: files whose size and mtime
match the cache are kept without being read); the other files are hashed, and only those
whose bytes changed are parsed, chunked and term-counted, in parallel across cores. The
cached counts of the reused files are merged with the fresh ones in canonical form (see
`counts`), and the TF-IDF idf is computed from the merged counts by scikit-learn
(`scoring.smooth_idf`), so an incremental build searches exactly like a full rebuild. When
no file changed, the stored index is the result (`reuse.unchanged_index`): `open_index`
then does not even import this module.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import partial
from itertools import groupby
from multiprocessing.context import BaseContext
from pathlib import Path
from time import perf_counter

import numpy as np

from docai import messages
from docai.cpus import usable_cpus
from docai.index import cache
from docai.index.build_report import BuildReport, PhaseTimings
from docai.index.cache import CachedIndex, CacheKey, FileEntry
from docai.index.chunk_table import ChunkTable
from docai.index.counts import block_of, merge
from docai.index.reuse import RACY_WINDOW_NS, Survey, cache_key, report_of, survey, unchanged_index
from docai.index.scoring import smooth_idf
from docai.index.workers import ParsedFile, parse_file, start_worker
from docai.records import Progress, progress_for
from docai.settings import Settings

__all__ = ["RACY_WINDOW_NS", "BuildReport", "PhaseTimings", "build_index", "cache_key", "finish"]

# One worker process per this many files to parse, up to the usable cores. Forked workers
# start in milliseconds: two already saved 10 % on 16 small pages (100 KB) and 30 % on the
# Debian Policy's 28 HTML pages (docs/benchmarks.md).
MIN_FILES_FOR_WORKERS = 8
# Below this many files parsing takes about a second: a bar would only flicker.
MIN_FILES_FOR_BAR = 50


def build_index(
    settings: Settings, *, progress: Progress | None = None
) -> tuple[CachedIndex, BuildReport]:
    """Build or refresh the stored index of `settings.docs_dir` (parsing only what changed
    since the cache was written); raises DocsFolderError only."""
    return finish(survey(settings), settings, progress=progress)


def finish(
    found: Survey, settings: Settings, *, progress: Progress | None = None
) -> tuple[CachedIndex, BuildReport]:
    """The index `found` (the survey of `settings.docs_dir`) calls for: hash, parse and
    merge what changed, then save."""
    if found.unchanged:
        return unchanged_index(found)
    scanned = perf_counter()
    work = partial(parse_file, found.root, settings.chunking, follow_links=settings.follow_links,
                   link_roots=settings.link_roots())
    parsed = {item.source: item for item in parse_all(work, found.tasks, progress)}
    parsed_at = perf_counter()

    known = found.known
    entries, fresh = _entries(found.sources, found.kept, parsed, known)
    stored = _assemble(found.key, entries, fresh, parsed, found.previous)
    indexed = perf_counter()

    changed_files = sum(1 for source in fresh if source in known)
    removed = len(known.keys() - set(found.sources))
    dirty = found.previous is None or removed or len(found.kept) < len(found.sources)
    warning = _save(found.directory, stored) if dirty else None
    saved = perf_counter()

    timings = PhaseTimings(
        scan=scanned - found.started,
        parse=parsed_at - scanned,
        index=indexed - parsed_at,
        save=saved - indexed,
    )
    return stored, report_of(found, stored, new=len(fresh) - changed_files,
                             changed=changed_files, removed=removed, timings=timings,
                             cache_warning=warning)


def parse_all(
    work: Callable[[tuple[str, str | None]], ParsedFile],
    tasks: list[tuple[str, str | None]],
    progress: Progress | None,
) -> list[ParsedFile]:
    """`work` done for every task, in order: here for a few files, else in workers.

    Called from a thread other than the main one (`docai mcp` runs each call in one), the
    files are parsed in workers started fresh (`spawn`), however few: a parse's time limit
    needs the main thread (`loading.deadline`), which only a worker process gives, and
    forking from that thread would copy locks other threads hold (the thread reading the
    agent's requests holds stdin's), leaving the workers stuck for good before they run.
    Workers are also started fresh when any other thread runs (the REPL's background
    embedding pass or folder follower): a fork copies whatever lock such a thread holds at
    that instant, and a worker waiting on it never ends.
    """
    workers = min(usable_cpus(), len(tasks) // MIN_FILES_FOR_WORKERS)
    if threading.current_thread() is not threading.main_thread():
        return _pooled(work, tasks, progress, max(1, workers), multiprocessing.get_context("spawn"))
    if workers > 1 and threading.active_count() > 1:
        return _pooled(work, tasks, progress, workers, multiprocessing.get_context("spawn"))
    if workers <= 1:
        return _tracked(map(work, tasks), len(tasks), progress)
    # The first file is parsed here: that loads the tokenizer and stemmers once, and the
    # forked workers inherit them instead of each spending ~0.5 s loading its own.
    first = work(tasks[0])
    return [first, *_pooled(work, tasks[1:], progress, workers, None, done=1)]


def _pooled(
    work: Callable[[tuple[str, str | None]], ParsedFile],
    tasks: list[tuple[str, str | None]],
    progress: Progress | None,
    workers: int,
    context: BaseContext | None,
    done: int = 0,
) -> list[ParsedFile]:
    """`work` done for `tasks` by a pool of `workers` processes (`context`: how they start,
    None for the platform's default)."""
    size = max(1, min(32, len(tasks) // (workers * 8)))
    others = set(multiprocessing.active_children())
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=start_worker, initargs=(os.getpid(),)) as pool:
        # Submitted before the bar starts its thread, so workers are forked without it.
        try:
            batches = [pool.submit(_parse_batch, work, tasks[i:i + size])
                       for i in range(0, len(tasks), size)]
            results = (item for batch in batches for item in batch.result())
            return _tracked(results, len(tasks) + done, progress, done=done)
        except BaseException:
            _stop_workers(others)
            raise


def _parse_batch(
    work: Callable[[tuple[str, str | None]], ParsedFile], tasks: list[tuple[str, str | None]]
) -> list[ParsedFile]:
    """Several files per round trip to a worker: fewer, larger messages on the pipe."""
    return [work(task) for task in tasks]


def _stop_workers(others: set[multiprocessing.process.BaseProcess]) -> None:
    """On Ctrl-C (or any failure) end the workers now, instead of letting them parse every
    file still queued; the pool then fails its pending batches and shuts down at once. The
    cache is untouched: it is only written after a complete build. The workers are this
    process's children started since `others` was taken (the pool names no public list).

    A terminal's second Ctrl-C often lands while this runs: it is ignored until every
    worker is told to end, or the workers left running (they ignore Ctrl-C) keep the pool's
    shutdown waiting on the whole queue. Only the main thread can change a handler."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        for process in multiprocessing.active_children():
            if process not in others:
                process.terminate()
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _tracked(
    results: Iterable[ParsedFile], total: int, progress: Progress | None, done: int = 0
) -> list[ParsedFile]:
    collected: list[ParsedFile] = []
    with progress_for(
        progress, messages.PROGRESS_PARSING, total, minimum=MIN_FILES_FOR_BAR, done=done
    ) as advance:
        for result in results:
            collected.append(result)
            advance(1)
    return collected


def _entries(
    sources: list[str],
    kept: set[str],
    parsed: dict[str, ParsedFile],
    known: dict[str, FileEntry],
) -> tuple[list[FileEntry], set[str]]:
    """The new file list in discovery order and the freshly parsed. Rows are not final yet:
    reused entries keep their rows in the cache, fresh ones get (0, their chunk count)."""
    entries: list[FileEntry] = []
    fresh: set[str] = set()
    for source in sources:
        if source in kept:
            entries.append(known[source])
            continue
        item = parsed[source]
        if item.reused:
            entries.append(replace(known[source], size=item.size, mtime_ns=item.mtime_ns))
            continue
        fresh.add(source)
        entries.append(
            FileEntry(
                source=source,
                sha256=item.sha256,
                size=item.size,
                mtime_ns=item.mtime_ns,
                sections=item.sections,
                rows=(0, len(item.chunks)),
                skipped=item.skipped.reason if item.skipped else None,
                notices=tuple(notice.message for notice in item.notices),
            )
        )
    return entries, fresh


def _assemble(
    key: CacheKey,
    entries: list[FileEntry],
    fresh: set[str],
    parsed: dict[str, ParsedFile],
    previous: CachedIndex | None,
) -> CachedIndex:
    """The new index: entries with their final rows, merged counts, their idf, chunks in
    file order.

    Reused entries still carry their row range in the previous index, which is how their
    rows and chunks are picked out of it. When nothing is fresh and the rows are the stored
    ones in the stored order, the stored index is already the result (it is canonical, as
    `merge` made it): a warm start merges, copies and computes nothing.
    """
    if (previous is not None and not fresh
            and [entry.rows for entry in entries] == [entry.rows for entry in previous.files]):
        return replace(previous, files=tuple(entries))
    reused = [np.arange(*entry.rows) for entry in entries if entry.source not in fresh]
    blocks = [parsed[entry.source].counts for entry in entries if entry.source in fresh]
    if previous is not None and reused:
        rows = np.concatenate(reused)
        blocks.insert(0, block_of(previous.vocabulary, previous.counts.take_rows(rows)))
    vocabulary, stacked = merge(blocks)
    # `stacked` holds the reused files' rows first, then the fresh ones, each in file order.
    next_row = {False: 0, True: sum(len(rows) for rows in reused)}
    permutation: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    placed: list[FileEntry] = []
    for entry in entries:
        size, is_fresh = entry.rows[1] - entry.rows[0], entry.source in fresh
        permutation.append(np.arange(next_row[is_fresh], next_row[is_fresh] + size))
        next_row[is_fresh] += size
        start = placed[-1].rows[1] if placed else 0
        placed.append(replace(entry, rows=(start, start + size)))
    counts = stacked.take_rows(np.concatenate(permutation))
    chunks = _chunk_table(entries, fresh, parsed, previous)
    return CachedIndex(key, tuple(placed), vocabulary, counts, chunks, smooth_idf(counts),
                       counts.column_order())


def _chunk_table(
    entries: list[FileEntry],
    fresh: set[str],
    parsed: dict[str, ParsedFile],
    previous: CachedIndex | None,
) -> ChunkTable:
    """The chunks of `entries` in order: each run of fresh files as one new table, each
    run of reused files as slices of the stored table (one per range of adjacent rows)."""
    stored = previous.chunks if previous is not None else ChunkTable.of(())
    tables: list[ChunkTable] = []
    for is_fresh, run in groupby(entries, key=lambda entry: entry.source in fresh):
        if is_fresh:
            chunks = [chunk for entry in run for chunk in parsed[entry.source].chunks]
            tables.append(ChunkTable.of(chunks))
        else:
            tables.extend(stored.slice(start, stop) for start, stop in _joined(run))
    return ChunkTable.join(tables)


def _joined(entries: Iterable[FileEntry]) -> list[tuple[int, int]]:
    """The entries' row ranges, adjacent ones joined into one."""
    ranges: list[tuple[int, int]] = []
    for start, stop in (entry.rows for entry in entries):
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], stop)
        elif stop > start:
            ranges.append((start, stop))
    return ranges


def _save(directory: Path, cached: CachedIndex) -> str | None:
    try:
        cache.save(directory, cached)
    except OSError as error:
        return messages.CACHE_NOT_SAVED.format(path=directory, reason=error.strerror or error)
    return None
