"""The per-file worker of the build: hash, parse, chunk and count terms of one file.

It runs in worker processes, so it takes and returns plain picklable data. Term counts come
back as a small per-file CSR block (local vocabulary + arrays) rather than lists of terms:
that is an order of magnitude less to send between processes.

A worker lives no longer than the process that started it (`start_worker`): killed
alone (by an IDE, the OOM killer, `kill -9`), the parent never tells its workers to stop,
and each would wait on the task pipe for ever, holding its memory.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from docai.chunking import chunk_document
from docai.index.counts import CountBlock, count_terms
from docai.loading import DEFAULT_MAX_BYTES, load_file, outside_link_reason
from docai.loading.isolated import die_with_parent
from docai.loading.load import folders_of
from docai.loading.reading import Unreadable, read_file
from docai.records import Chunk, Notice, Skipped
from docai.settings import ChunkSettings
from docai.text.analysis import chunk_terms

# How often a worker checks that its parent is still alive, where prctl is not available.
PARENT_CHECK_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What one file contributes. `reused` means its bytes hash to the known sha256."""

    source: str
    sha256: str
    size: int
    mtime_ns: int
    reused: bool
    sections: int
    chunks: tuple[Chunk, ...]
    counts: CountBlock
    skipped: Skipped | None
    notices: tuple[Notice, ...]


def parse_file(
    root: Path,
    chunking: ChunkSettings,
    task: tuple[str, str | None],
    *,
    follow_links: bool = False,
    link_roots: tuple[str, ...] = (),
) -> ParsedFile:
    """Parse `root/source` unless its content hashes to `known_sha256` (then it is reused).

    A file that now leads outside `root` (a symlink put in its place since the walk, or in
    place of a folder above it) is neither hashed nor parsed, unless `follow_links`. The
    bytes are read once, so what is hashed is what is parsed."""
    source, known_sha256 = task
    path = root / source
    if not follow_links and (reason := outside_link_reason(root, path, link_roots)) is not None:
        return _parsed(source, "", 0, 0, skipped=Skipped(source, reason))
    size = mtime_ns = 0
    try:
        stat = path.stat()  # before reading: a later edit then shows up as a changed stat
        size, mtime_ns = stat.st_size, stat.st_mtime_ns
    except OSError:
        pass  # reading it says why the file cannot be used
    data = read_file(path, max_bytes=DEFAULT_MAX_BYTES,
                     inside=None if follow_links else folders_of(root, link_roots))
    digest = "" if isinstance(data, Unreadable) else hashlib.sha256(data).hexdigest()
    if digest == known_sha256:  # "" == "": still unreadable or too big, as last time
        return _parsed(source, digest, size, mtime_ns, reused=True)
    if isinstance(data, Unreadable):
        return _parsed(source, digest, size, mtime_ns, skipped=Skipped(source, data.reason))
    # Where it leads was checked as it was read.
    result = load_file(root, path, follow_links=True, link_roots=link_roots, data=data)
    if result.document is None:
        return _parsed(
            source, digest, size, mtime_ns, skipped=result.skipped, notices=result.notices
        )
    chunks = chunk_document(result.document, chunking)
    return ParsedFile(
        source=source,
        sha256=digest,
        size=size,
        mtime_ns=mtime_ns,
        reused=False,
        sections=len(result.document.sections),
        chunks=chunks,
        counts=count_terms([chunk_terms(chunk) for chunk in chunks]),
        skipped=None,
        notices=result.notices,
    )


def _parsed(
    source: str,
    digest: str,
    size: int,
    mtime_ns: int,
    *,
    reused: bool = False,
    skipped: Skipped | None = None,
    notices: tuple[Notice, ...] = (),
) -> ParsedFile:
    return ParsedFile(
        source=source, sha256=digest, size=size, mtime_ns=mtime_ns, reused=reused,
        sections=0, chunks=(), counts=count_terms([]), skipped=skipped, notices=notices,
    )


def start_worker(parent_pid: int) -> None:
    """Set up a worker process: it ignores Ctrl-C and ends when its parent does.

    Ctrl-C: the terminal sends it to the whole process group, and a worker killed
    mid-reply can leave the parent waiting on the pipe for ever; the parent ends the
    workers itself. Parent's death: on Linux the kernel kills the worker at once
    (PR_SET_PDEATHSIG; strictly, when the thread that started it ends, and the pool starts
    its workers from the build's thread, which outlives them); everywhere, a watchdog
    thread ends it within PARENT_CHECK_SECONDS of its parent's death.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    if os.getppid() != parent_pid:  # the parent died before the kernel was told to watch
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                     name="docai-parent-watch").start()


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)
