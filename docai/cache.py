"""The on-disk index cache: `manifest.json` (what was indexed, from which bytes) + `arrays.npz`.

Why two files: chunk text and per-file bookkeeping are naturally JSON, while the term-count
matrix is large and numeric, so it goes to an `.npz` read with `allow_pickle=False`. A random
`generation` id written into both lets a reader notice a pair that comes from two different
writes. Anything unexpected raises `CacheError`: the caller rebuilds, it never trusts a
half-valid cache.

Writes are atomic (temp file in the same folder, fsync, `os.replace`; arrays first, manifest
last) and serialised by an exclusive `flock`; readers take a shared lock, so a reader never
sees the arrays of one write with the manifest of another.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from docai import __version__, messages
from docai.errors import CacheError
from docai.models import Chunk

FORMAT_VERSION = 2
MANIFEST_NAME = "manifest.json"
ARRAYS_NAME = "arrays.npz"
LOCK_NAME = "lock"
# The per-file chunk columns in the manifest and the JSON type of their items.
CHUNK_COLUMNS: dict[str, type] = {
    "heading_paths": list, "ordinals": int, "texts": str, "tokens": int,
}


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Everything that shapes the stored counts; a cache built under another key is stale."""

    max_tokens: int
    overlap_tokens: int
    encoding: str
    parser_version: str
    analyzer_version: str
    docai_version: str = __version__

    def difference(self, other: CacheKey) -> str:
        """Name the first field that differs, for the one-line 'rebuilt because' message."""
        for name in self.__slots__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                return messages.CACHE_SETTING_CHANGED.format(name=name, old=theirs, new=mine)
        return ""


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One discovered file as last indexed. `rows` is its half-open row range in the matrix."""

    source: str
    sha256: str
    size: int
    mtime_ns: int
    sections: int
    chunks: tuple[Chunk, ...]
    rows: tuple[int, int]
    skipped: str | None
    notices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CachedIndex:
    """A whole index as stored: files in order, and the term counts of all their chunks."""

    key: CacheKey
    files: tuple[FileEntry, ...]
    vocabulary: tuple[str, ...]
    counts: sp.csr_matrix


def load(directory: Path, key: CacheKey) -> CachedIndex | None:
    """Read the cache in `directory`; None when there is none yet.

    Raises CacheError (message in pt-BR) when it exists but cannot be trusted.
    """
    try:
        with _locked(directory, fcntl.LOCK_SH, create=False):
            raw = (directory / MANIFEST_NAME).read_bytes()
            arrays = _read_arrays(directory / ARRAYS_NAME)
    except FileNotFoundError:
        return None
    except OSError as error:
        reason = error.strerror or error
        raise CacheError(messages.CACHE_UNREADABLE.format(reason=reason)) from error
    manifest = _parse_json(raw)
    version = _field(manifest, "format_version", int)
    if version != FORMAT_VERSION:
        raise CacheError(messages.CACHE_OTHER_FORMAT.format(found=version, expected=FORMAT_VERSION))
    stored_key = _parse_key(_field(manifest, "key", dict))
    if stored_key != key:
        raise CacheError(key.difference(stored_key))
    if _field(manifest, "generation", str) != arrays["generation"]:
        raise CacheError(messages.CACHE_GENERATION_MISMATCH)
    vocabulary = tuple(_field(manifest, "vocabulary", list))
    if not all(isinstance(term, str) for term in vocabulary):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="vocabulary"))
    files = tuple(_parse_entry(item) for item in _field(manifest, "files", list))
    counts = _build_matrix(arrays, len(vocabulary))
    _check_rows(files, counts.shape[0])
    return CachedIndex(key=key, files=files, vocabulary=vocabulary, counts=counts)


def saved_at_ns(directory: Path) -> int | None:
    """When the cache in `directory` was last written (its manifest's mtime), if it exists."""
    try:
        return (directory / MANIFEST_NAME).stat().st_mtime_ns
    except OSError:
        return None


def save(directory: Path, cached: CachedIndex) -> None:
    """Write atomically under an exclusive lock. Raises OSError when the folder is unwritable."""
    directory.mkdir(parents=True, exist_ok=True)
    generation = uuid.uuid4().hex
    counts = cached.counts
    manifest = {
        "format_version": FORMAT_VERSION,
        "generation": generation,
        "key": {name: getattr(cached.key, name) for name in CacheKey.__slots__},
        "vocabulary": list(cached.vocabulary),
        "files": [_entry_json(entry) for entry in cached.files],
    }
    manifest_bytes = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode()
    with _locked(directory, fcntl.LOCK_EX, create=True):
        _remove_leftovers(directory, (ARRAYS_NAME, MANIFEST_NAME))
        write_atomic(
            directory / ARRAYS_NAME,
            lambda handle: np.savez(
                handle,
                data=counts.data.astype(np.int32, copy=False),
                indices=counts.indices.astype(np.int32, copy=False),
                indptr=counts.indptr.astype(np.int64, copy=False),
                shape=np.asarray(counts.shape, dtype=np.int64),
                generation=np.asarray(generation),
            ),
        )
        write_atomic(directory / MANIFEST_NAME, lambda handle: handle.write(manifest_bytes))


def _remove_leftovers(directory: Path, names: tuple[str, ...]) -> None:
    """Delete temp files a killed writer left behind. Only called under the exclusive lock,
    which every writer of these files holds while writing: any temp file seen then is dead."""
    for name in names:
        for leftover in directory.glob(f".{name}.*.tmp"):
            leftover.unlink(missing_ok=True)


@contextmanager
def _locked(directory: Path, mode: int, *, create: bool) -> Iterator[None]:
    """Hold `flock(mode)` on the lock file; readers of a read-only cache go without a lock."""
    try:
        handle = open(directory / LOCK_NAME, "a+b" if create else "rb")  # noqa: SIM115
    except OSError:
        if create:
            raise
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), mode)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def write_atomic_locked(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """`write_atomic` under the folder's exclusive lock, after deleting the temp files a
    killed writer of `path` left (safe only under the lock every writer of `path` holds)."""
    with _locked(path.parent, fcntl.LOCK_EX, create=True):
        _remove_leftovers(path.parent, (path.name,))
        write_atomic(path, write)


def write_atomic(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed or deleted below)
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _read_arrays(path: Path) -> dict[str, Any]:
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in ("data", "indices", "indptr", "shape")}
            generation = npz["generation"]
    except FileNotFoundError as error:
        raise CacheError(messages.CACHE_ARRAYS_MISSING) from error
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error
    if generation.shape != () or generation.dtype.kind != "U":
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    arrays["generation"] = str(generation)
    return arrays


def _build_matrix(arrays: dict[str, Any], width: int) -> sp.csr_matrix:
    shape = arrays["shape"]
    if shape.shape != (2,) or int(shape[1]) != width:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    try:
        counts = sp.csr_matrix(
            (arrays["data"], arrays["indices"], arrays["indptr"]),
            shape=(int(shape[0]), width),
        )
        counts.check_format(full_check=True)
    except (ValueError, TypeError) as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error
    return counts


def _parse_json(raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CacheError(messages.CACHE_MANIFEST_CORRUPT) from error
    if not isinstance(manifest, dict):
        raise CacheError(messages.CACHE_MANIFEST_CORRUPT)
    return manifest


def _field(obj: dict[str, Any], name: str, kind: type) -> Any:
    """A required field of the expected JSON type (bool is not accepted as int)."""
    value = obj.get(name) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field=name))
    return value


def _parse_key(raw: dict[str, Any]) -> CacheKey:
    """The stored key. A field an older docai did not write reads as absent, so the rebuild
    message names the setting that changed rather than calling the manifest broken."""
    kinds = {"max_tokens": int, "overlap_tokens": int}
    fields: dict[str, Any] = {}
    for name in CacheKey.__slots__:
        if name in raw:
            fields[name] = _field(raw, name, kinds.get(name, str))
        else:
            fields[name] = messages.CACHE_FIELD_ABSENT
    return CacheKey(**fields)


def _parse_entry(raw: dict[str, Any]) -> FileEntry:
    source = _field(raw, "source", str)
    rows = _field(raw, "rows", list)
    if len(rows) != 2 or not _all_of(int, rows):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="rows"))
    skipped = raw.get("skipped")
    notices = _field(raw, "notices", list)
    if not (skipped is None or isinstance(skipped, str)) or not _all_of(str, notices):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="skipped/notices"))
    return FileEntry(
        source=source,
        sha256=_field(raw, "sha256", str),
        size=_field(raw, "size", int),
        mtime_ns=_field(raw, "mtime_ns", int),
        sections=_field(raw, "sections", int),
        chunks=_parse_chunks(source, _field(raw, "chunks", dict)),
        rows=(rows[0], rows[1]),
        skipped=skipped,
        notices=tuple(notices),
    )


def _parse_chunks(source: str, raw: dict[str, Any]) -> tuple[Chunk, ...]:
    """Chunks are stored column-wise: one list per field, checked in bulk (fast to load)."""
    columns = {name: _field(raw, name, list) for name in CHUNK_COLUMNS}
    if len({len(column) for column in columns.values()}) > 1:
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field=f"chunks ({source})"))
    for name, kind in CHUNK_COLUMNS.items():
        if not _all_of(kind, columns[name]):
            raise CacheError(messages.CACHE_BAD_MANIFEST.format(field=name))
    if not all(_all_of(str, path) for path in columns["heading_paths"]):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="heading_paths"))
    return tuple(
        map(
            Chunk,
            repeat(source),
            map(tuple, columns["heading_paths"]),
            columns["ordinals"],
            columns["texts"],
            columns["tokens"],
        )
    )


def _all_of(kind: type, values: list[Any]) -> bool:
    """Exact type check of every item (so a JSON `true` never passes for an int)."""
    return all(type(value) is kind for value in values)


def _check_rows(files: tuple[FileEntry, ...], height: int) -> None:
    """Row ranges must tile the matrix in file order, one row per chunk."""
    expected = 0
    for entry in files:
        start, end = entry.rows
        if start != expected or end - start != len(entry.chunks):
            raise CacheError(messages.CACHE_BAD_MANIFEST.format(field=f"rows ({entry.source})"))
        expected = end
    if expected != height:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)


def _entry_json(entry: FileEntry) -> dict[str, Any]:
    return {
        "source": entry.source,
        "sha256": entry.sha256,
        "size": entry.size,
        "mtime_ns": entry.mtime_ns,
        "sections": entry.sections,
        "rows": list(entry.rows),
        "skipped": entry.skipped,
        "notices": list(entry.notices),
        "chunks": {
            "heading_paths": [list(chunk.heading_path) for chunk in entry.chunks],
            "ordinals": [chunk.ordinal for chunk in entry.chunks],
            "texts": [chunk.text for chunk in entry.chunks],
            "tokens": [chunk.tokens for chunk in entry.chunks],
        },
    }
