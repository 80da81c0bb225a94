"""The per-file worker of the build: hash, parse, chunk and count terms of one file.

It runs in worker processes, so it takes and returns plain picklable data. Term counts come
back as a small per-file CSR block (local vocabulary + arrays) rather than lists of terms:
that is an order of magnitude less to send between processes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from docai.chunking import chunk_document
from docai.index.counts import CountBlock, count_terms
from docai.loading import DEFAULT_MAX_BYTES, load_file
from docai.records import Chunk, Notice, Skipped
from docai.settings import ChunkSettings
from docai.text.analysis import chunk_terms


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
    root: Path, chunking: ChunkSettings, task: tuple[str, str | None]
) -> ParsedFile:
    """Parse `root/source` unless its content hashes to `known_sha256` (then it is reused)."""
    source, known_sha256 = task
    path = root / source
    size = mtime_ns = 0
    digest = ""
    try:
        stat = path.stat()  # before reading: a later edit then shows up as a changed stat
        size, mtime_ns = stat.st_size, stat.st_mtime_ns
        if size <= DEFAULT_MAX_BYTES:  # load_file skips bigger files unread; so do we
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        pass  # load_file below says why the file cannot be used
    if digest == known_sha256:  # "" == "": still unreadable or too big, as last time
        return _parsed(source, digest, size, mtime_ns, reused=True)
    result = load_file(root, path)
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
