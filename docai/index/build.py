"""build_index: the stored index of a docs folder, reusing the on-disk cache wherever it can.

Files whose size and mtime match the cache are reused without being read (unless modified
within `RACY_WINDOW_NS` of the cache's last write: those could have changed unseen); the
others are hashed, and only those whose bytes changed are parsed, chunked and term-counted, in
parallel across cores. The cached counts of the reused files are merged with the fresh
ones in canonical form (see `counts`), and the TF-IDF idf is computed from the merged counts
by scikit-learn (`scoring.smooth_idf`), so an incremental build searches exactly like a full
rebuild. When no file's bytes changed and none was removed, the cached matrix, idf and chunk
table are that result already and are used as loaded: scikit-learn is not even imported.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from itertools import groupby
from pathlib import Path
from time import perf_counter

import numpy as np

from docai import messages
from docai.chunking import CHUNKER_VERSION
from docai.errors import CacheError
from docai.index import cache
from docai.index.cache import CachedIndex, CacheKey, FileEntry
from docai.index.chunk_table import ChunkTable
from docai.index.counts import block_of, merge
from docai.index.scoring import smooth_idf
from docai.index.workers import ParsedFile, parse_file, start_worker
from docai.loading import PARSER_VERSION, scan, source_name
from docai.records import Notice, Progress, Skipped, progress_for
from docai.settings import Settings
from docai.text.analysis import ANALYZER_VERSION

# Below this many files to parse, starting worker processes costs more than it saves.
MIN_FILES_FOR_WORKERS = 16
# Below this many files parsing takes about a second: a bar would only flicker.
MIN_FILES_FOR_BAR = 50
# A file modified this close to (or after) the cache's last write may have changed again
# within one timestamp tick, keeping its size and mtime: it is hashed, not trusted (git's
# "racily clean" rule). Two seconds cover the coarsest common filesystem clocks (FAT, HFS+).
RACY_WINDOW_NS = 2_000_000_000


@dataclass(frozen=True, slots=True)
class PhaseTimings:
    """Seconds spent per phase: scan (discover, stat, read cache), parse, index, save."""

    scan: float
    parse: float
    index: float
    save: float


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What build_index did, for `docai index` and the REPL banner.

    `files` counts the files indexed (not skipped); new/changed/unchanged partition every
    discovered file. `skipped` holds the files that gave no text and what the walk passed
    over (links out of the folder, pipes, folders it could not read), by source, each with
    its reason; a source is the real name: show it through `loading.display_name`.
    `cache_status` is None when the cache was valid (or absent), else a pt-BR line saying
    why it was rebuilt; `cache_warning` says the index could not be saved.
    """

    files: int
    new: int
    changed: int
    removed: int
    unchanged: int
    skipped: tuple[Skipped, ...]
    notices: tuple[Notice, ...]
    sections: int
    chunks: int
    tokens: int
    timings: PhaseTimings
    cache_status: str | None
    cache_warning: str | None


def build_index(
    settings: Settings, *, progress: Progress | None = None
) -> tuple[CachedIndex, BuildReport]:
    """Build or refresh the stored index of `settings.docs_dir` (parsing only what changed
    since the cache was written); raises DocsFolderError only."""
    started = perf_counter()
    root = settings.docs_dir
    follow_links = settings.follow_links
    found = scan(root, follow_links=follow_links)
    sources = [source_name(root, path) for path in found.files]
    directory = settings.resolved_cache_dir()
    previous, cache_status = _read_cache(directory, cache_key(settings), settings.rebuild)
    known = {entry.source: entry for entry in previous.files} if previous else {}
    saved_at = cache.saved_at_ns(directory) if previous else None
    kept, tasks = _plan(root, sources, known, trusted_before_ns=(saved_at or 0) - RACY_WINDOW_NS)
    scanned = perf_counter()

    work = partial(parse_file, root, settings.chunking, follow_links=follow_links)
    parsed = {item.source: item for item in _parse_all(work, tasks, progress)}
    parsed_at = perf_counter()

    entries, fresh = _entries(sources, kept, parsed, known)
    stored = _assemble(cache_key(settings), entries, fresh, parsed, previous)
    chunks = stored.chunks
    indexed = perf_counter()

    changed_files = sum(1 for source in fresh if source in known)
    removed = len(known.keys() - set(sources))
    dirty = previous is None or removed or len(kept) < len(sources)
    warning = _save(directory, stored) if dirty else None
    saved = perf_counter()

    report = BuildReport(
        files=sum(1 for entry in entries if entry.skipped is None),
        new=len(fresh) - changed_files,
        changed=changed_files,
        removed=removed,
        unchanged=len(sources) - len(fresh),
        skipped=_skipped(found.skipped, entries),
        notices=tuple(Notice(e.source, message) for e in entries for message in e.notices),
        sections=sum(entry.sections for entry in entries),
        chunks=len(chunks),
        tokens=int(chunks.tokens.sum()),
        timings=PhaseTimings(
            scan=scanned - started,
            parse=parsed_at - scanned,
            index=indexed - parsed_at,
            save=saved - indexed,
        ),
        cache_status=cache_status,
        cache_warning=warning,
    )
    return stored, report


def cache_key(settings: Settings) -> CacheKey:
    chunking = settings.chunking
    return CacheKey(
        max_tokens=chunking.max_tokens,
        overlap_tokens=chunking.overlap_tokens,
        encoding=chunking.encoding,
        parser_version=PARSER_VERSION,
        chunker_version=CHUNKER_VERSION,
        analyzer_version=ANALYZER_VERSION,
    )


def _read_cache(
    directory: Path, key: CacheKey, rebuild: bool
) -> tuple[CachedIndex | None, str | None]:
    if rebuild:
        return None, messages.CACHE_REBUILT.format(reason=messages.CACHE_REBUILD_ASKED)
    try:
        return cache.load(directory, key), None
    except CacheError as error:
        return None, messages.CACHE_REBUILT.format(reason=error)


def _plan(
    root: Path, sources: list[str], known: dict[str, FileEntry], *, trusted_before_ns: int
) -> tuple[set[str], list[tuple[str, str | None]]]:
    """Split files into kept (same size and mtime, modified before `trusted_before_ns`: not
    even read) and tasks for the workers (hashed; parsed only if the bytes changed)."""
    kept: set[str] = set()
    tasks: list[tuple[str, str | None]] = []
    folder = os.fspath(root)
    for source in sources:
        entry = known.get(source)
        if (entry is not None and entry.mtime_ns < trusted_before_ns
                and _same_stat(os.path.join(folder, source), entry)):
            kept.add(source)
        else:
            tasks.append((source, entry.sha256 if entry else None))
    return kept, tasks


def _same_stat(path: str, entry: FileEntry) -> bool:
    """A plain string path: building a `Path` per file would cost more than its stat."""
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return stat.st_size == entry.size and stat.st_mtime_ns == entry.mtime_ns


def _skipped(passed_over: tuple[Skipped, ...], entries: list[FileEntry]) -> tuple[Skipped, ...]:
    """What the walk passed over and the files that gave no text, in one list by source."""
    unusable = (Skipped(e.source, e.skipped) for e in entries if e.skipped is not None)
    return tuple(sorted([*passed_over, *unusable], key=lambda item: item.source))


def _parse_all(
    work: Callable[[tuple[str, str | None]], ParsedFile],
    tasks: list[tuple[str, str | None]],
    progress: Progress | None,
) -> list[ParsedFile]:
    workers = min(_cpu_count(), len(tasks) // MIN_FILES_FOR_WORKERS)
    if workers <= 1:
        return _tracked(map(work, tasks), len(tasks), progress)
    # The first file is parsed here: that loads the tokenizer and stemmers once, and the
    # forked workers inherit them instead of each spending ~0.5 s loading its own.
    first = work(tasks[0])
    rest = tasks[1:]
    size = max(1, min(32, len(rest) // (workers * 8)))
    others = set(multiprocessing.active_children())
    with ProcessPoolExecutor(
        max_workers=workers, initializer=start_worker, initargs=(os.getpid(),)
    ) as pool:
        # Submitted before the bar starts its thread, so workers are forked without it.
        try:
            batches = [pool.submit(_parse_batch, work, rest[i:i + size])
                       for i in range(0, len(rest), size)]
            results = (item for batch in batches for item in batch.result())
            return [first, *_tracked(results, len(tasks), progress, done=1)]
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
    process's children started since `others` was taken (the pool names no public list)."""
    for process in multiprocessing.active_children():
        if process not in others:
            process.terminate()


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


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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
        blocks.insert(0, block_of(previous.vocabulary, previous.counts[rows]))
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
    counts = stacked[np.concatenate(permutation)]
    chunks = _chunk_table(entries, fresh, parsed, previous)
    return CachedIndex(key, tuple(placed), vocabulary, counts, chunks, smooth_idf(counts))


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
