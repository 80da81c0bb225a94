"""What of the stored index can be reused: the walk, the cache read and the plan of which
files must be hashed or parsed again (`survey`), and the stored index itself when no file
changed (`unchanged_index`).

Its own module, apart from the build (`docai.index.build`), because this is all a warm
start does: `open_index` surveys first and imports the build machinery (parsers, worker
processes, scipy, scikit-learn) only when something changed.

Files whose size and mtime match the cache are reused without being read, unless modified
within `RACY_WINDOW_NS` of the cache's last write: those could have changed unseen.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

from docai import messages
from docai.chunking import CHUNKER_VERSION
from docai.errors import CacheError
from docai.index import cache
from docai.index.build_report import BuildReport, PhaseTimings
from docai.index.cache import CachedIndex, CacheKey, FileEntry
from docai.loading import PARSER_VERSION, Discovery, scan, source_name
from docai.records import Notice, Skipped
from docai.settings import Settings
from docai.text.analysis import ANALYZER_VERSION

# A file modified this close to (or after) the cache's last write may have changed again
# within one timestamp tick, keeping its size and mtime: it is hashed, not trusted (git's
# "racily clean" rule). Two seconds cover the coarsest common filesystem clocks (FAT, HFS+).
RACY_WINDOW_NS = 2_000_000_000


@dataclass(frozen=True, slots=True)
class Survey:
    """The docs folder against the cache: what was found, what the cache held (`previous`,
    None when absent, unusable or `--rebuild`; `cache_status` says why), which files are
    kept untouched and which must be hashed (`tasks`: source and cached sha256, if any)."""

    started: float
    root: Path
    key: CacheKey
    directory: Path
    found: Discovery
    sources: list[str]
    previous: CachedIndex | None
    cache_status: str | None
    known: dict[str, FileEntry]
    kept: set[str]
    tasks: list[tuple[str, str | None]]

    @property
    def unchanged(self) -> bool:
        """Whether the stored index is the index: every file kept, none removed, in the
        stored order."""
        if self.previous is None or len(self.kept) < len(self.sources):
            return False
        return [entry.source for entry in self.previous.files] == self.sources


def survey(settings: Settings) -> Survey:
    """Walk the docs folder, read the cache and plan the work; raises DocsFolderError only."""
    started = perf_counter()
    root = settings.docs_dir
    found = scan(root, follow_links=settings.follow_links, use_gitignore=settings.use_gitignore,
                 link_roots=settings.link_roots())
    sources = [source_name(root, path) for path in found.files]
    directory = settings.resolved_cache_dir()
    key = cache_key(settings)
    previous, cache_status = _read_cache(directory, key, settings.rebuild)
    known = {entry.source: entry for entry in previous.files} if previous else {}
    saved_at = cache.saved_at_ns(directory) if previous else None
    kept, tasks = _plan(root, sources, known, trusted_before_ns=(saved_at or 0) - RACY_WINDOW_NS)
    return Survey(started, root, key, directory, found, sources, previous, cache_status,
                  known, kept, tasks)


def unchanged_index(found: Survey) -> tuple[CachedIndex, BuildReport]:
    """The stored index as loaded, and its report (`found.unchanged` must hold): nothing
    parsed, merged, computed or saved."""
    stored = found.previous
    assert stored is not None
    return stored, report_of(found, stored, new=0, changed=0, removed=0, timings=PhaseTimings(
        scan=perf_counter() - found.started, parse=0.0, index=0.0, save=0.0))


def report_of(
    found: Survey, stored: CachedIndex, *, new: int, changed: int, removed: int,
    timings: PhaseTimings, cache_warning: str | None = None,
) -> BuildReport:
    """The report of `stored`, the index `found` led to (the counts are the caller's)."""
    entries = stored.files
    return BuildReport(
        files=sum(1 for entry in entries if entry.skipped is None),
        new=new,
        changed=changed,
        removed=removed,
        unchanged=len(found.sources) - new - changed,
        skipped=_skipped(found.found.skipped, entries),
        notices=(*found.found.notices,
                 *(Notice(e.source, message) for e in entries for message in e.notices)),
        sections=sum(entry.sections for entry in entries),
        chunks=len(stored.chunks),
        tokens=int(stored.chunks.tokens.sum()),
        timings=timings,
        cache_status=found.cache_status,
        cache_warning=cache_warning,
        ignored=found.found.ignored,
        unread=found.found.unread,
    )


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


def _skipped(
    passed_over: tuple[Skipped, ...], entries: tuple[FileEntry, ...]
) -> tuple[Skipped, ...]:
    """What the walk passed over and the files that gave no text, in one list by source."""
    unusable = (Skipped(e.source, e.skipped) for e in entries if e.skipped is not None)
    return tuple(sorted([*passed_over, *unusable], key=lambda item: item.source))
