"""The on-disk index cache: `manifest.json` (what was indexed, from which bytes) + `arrays.npz`.

Why two files: per-file bookkeeping is naturally JSON, while the term-count matrix, its
TF-IDF idf, its column-major order and the chunks (texts, heading paths, ordinals, token
counts) are bulk data: they
go to an `.npz` read with `allow_pickle=False`, texts as one UTF-8 buffer with offsets, so a
warm start reads them in one copy instead of parsing 100k JSON strings into objects
(`ChunkTable`). The idf is stored, although the counts determine it, because computing it
takes scikit-learn, whose import alone costs a warm start about a second; so is the order
of the counts' entries by column (`Csr.column_order`), the column layout every search
needs, which numpy alone would take a sort to find.
The zip's CRC-32 of every array catches damaged bytes. A random `generation` id written
into both files lets a reader notice a pair that comes from two different writes. Anything
unexpected raises `CacheError`: the caller rebuilds, it never trusts a half-valid cache.

Each save writes both files into a new generation folder and switches to it in one atomic
rename, under the folder's exclusive lock; readers share the lock (`storage`). So a crash
at any moment leaves exactly the old index or exactly the new one.

File names that are not valid UTF-8 reach docai as strings with lone surrogates (Python's
`surrogateescape`); the manifest stores each as a JSON `\\udcXX` escape, which reads back
as the very same string, so such a file is indexed and found like any other.
"""

from __future__ import annotations

import fcntl
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from docai import __version__, messages
from docai.errors import CacheError
from docai.index import storage
from docai.index.chunk_table import ChunkTable, Strings
from docai.index.sparse import Csr

# Bumped whenever the layout of either file or of the folder changes: a cache written in
# another layout is reported as such and rebuilt, never misread. (5: generation folders;
# 6: the counts' column order; 7: chunk locations.)
FORMAT_VERSION = 7
MANIFEST_NAME = "manifest.json"
ARRAYS_NAME = "arrays.npz"
LOCK_NAME = storage.LOCK_NAME
# The manifest's per-file columns and the JSON type of their items ("skipped" is str or
# null; "chunks" counts a file's rows, which follow one another in file order).
FILE_COLUMNS: dict[str, type] = {
    "source": str, "sha256": str, "size": int, "mtime_ns": int, "sections": int,
    "chunks": int, "notices": list,
}


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Everything that shapes the stored counts; a cache built under another key is stale."""

    max_tokens: int
    overlap_tokens: int
    encoding: str
    parser_version: str
    chunker_version: str
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
    """One discovered file as last indexed. `rows` is the half-open range of its chunks'
    rows in the matrix and the chunk table."""

    source: str
    sha256: str
    size: int
    mtime_ns: int
    sections: int
    rows: tuple[int, int]
    skipped: str | None
    notices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CachedIndex:
    """A whole index as stored: files in order, their chunks, the chunks' term counts, the
    counts' idf (`scoring.smooth_idf`, float64, one per vocabulary term) and their entries'
    column-major order (`Csr.column_order`)."""

    key: CacheKey
    files: tuple[FileEntry, ...]
    vocabulary: tuple[str, ...]
    counts: Csr
    chunks: ChunkTable
    idf: np.ndarray
    column_order: np.ndarray


def load(directory: Path, key: CacheKey) -> CachedIndex | None:
    """Read the cache in `directory`; None when there is none yet.

    Raises CacheError (message in pt-BR) when it exists but cannot be trusted.
    """
    try:
        with storage.locked(directory, fcntl.LOCK_SH, create=False):
            raw = (directory / MANIFEST_NAME).read_bytes()
            arrays = _read_arrays(directory / ARRAYS_NAME)
    except (FileNotFoundError, NotADirectoryError):  # none yet, or a file where it would be
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
    if _field(manifest, "generation", str) != _generation(arrays):
        raise CacheError(messages.CACHE_GENERATION_MISMATCH)
    vocabulary = tuple(_field(manifest, "vocabulary", list))
    if not _all_of(str, vocabulary):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="vocabulary"))
    files = _parse_files(_field(manifest, "files", dict))
    counts = _build_matrix(arrays, len(vocabulary))
    if (files[-1].rows[1] if files else 0) != counts.shape[0]:
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="chunks"))
    chunks = _build_chunks(arrays, files)
    idf = _build_idf(arrays, len(vocabulary))
    return CachedIndex(
        key=key, files=files, vocabulary=vocabulary, counts=counts, chunks=chunks, idf=idf,
        column_order=_build_column_order(arrays, counts),
    )


def saved_at_ns(directory: Path) -> int | None:
    """When the cache in `directory` was last written (its current manifest's mtime)."""
    try:
        return (directory / MANIFEST_NAME).stat().st_mtime_ns
    except OSError:
        return None


def save(directory: Path, cached: CachedIndex) -> None:
    """Write a new generation and switch to it, under the exclusive lock (then delete the
    older ones). Raises OSError when the folder is unwritable."""
    storage.make_private_dirs(directory)
    generation = uuid.uuid4().hex
    counts = cached.counts
    manifest = {
        "format_version": FORMAT_VERSION,
        "generation": generation,
        "key": {name: getattr(cached.key, name) for name in CacheKey.__slots__},
        "vocabulary": list(cached.vocabulary),
        "files": _files_json(cached.files),
    }
    # Only a lone surrogate cannot be encoded, and its backslash escape is JSON's own.
    manifest_bytes = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"
    )
    chunks = cached.chunks
    with storage.locked(directory, fcntl.LOCK_EX, create=True):
        storage.remove_leftovers(directory)
        # Before writing, so a killed save's half-written folder does not fill a disk.
        storage.remove_old_generations(directory, keep=storage.current_generation(directory))
        folder = storage.new_generation(directory, generation)
        storage.write_atomic(
            folder / ARRAYS_NAME,
            lambda handle: np.savez(
                handle,
                data=counts.data.astype(np.int32, copy=False),
                indices=counts.indices.astype(np.int32, copy=False),
                indptr=counts.indptr.astype(np.int64, copy=False),
                shape=np.asarray(counts.shape, dtype=np.int64),
                idf=cached.idf.astype(np.float64, copy=False),
                column_order=cached.column_order.astype(np.int64, copy=False),
                generation=np.asarray(generation),
                ordinals=chunks.ordinals,
                tokens=chunks.tokens,
                texts=chunks.texts.data,
                text_offsets=chunks.texts.offsets,
                heading_parts=chunks.heading_parts.data,
                heading_part_offsets=chunks.heading_parts.offsets,
                heading_offsets=chunks.heading_offsets,
                location_units=chunks.location_units,
                location_numbers=chunks.location_numbers,
            ),
        )
        storage.write_atomic(folder / MANIFEST_NAME, lambda handle: handle.write(manifest_bytes))
        storage.switch_to(folder, (MANIFEST_NAME, ARRAYS_NAME))


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array in the file; which ones must be there is checked after the format version,
    so a cache of another format is reported as such, not as damaged."""
    try:
        return storage.read_npz(path)
    except FileNotFoundError as error:
        raise CacheError(messages.CACHE_ARRAYS_MISSING) from error
    except storage.DamagedArrays as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error


def _array(arrays: dict[str, np.ndarray], name: str) -> np.ndarray:
    try:
        return arrays[name]
    except KeyError as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error


def _generation(arrays: dict[str, np.ndarray]) -> str:
    generation = _array(arrays, "generation")
    if generation.shape != () or generation.dtype.kind != "U":
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    return str(generation)


def _build_matrix(arrays: dict[str, np.ndarray], width: int) -> Csr:
    shape = _array(arrays, "shape")
    if shape.shape != (2,) or shape.dtype != np.int64 or int(shape[1]) != width:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    try:
        return Csr.checked(
            _array(arrays, "data"), _array(arrays, "indices"), _array(arrays, "indptr"),
            (int(shape[0]), width),
        )
    except ValueError as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error


def _build_column_order(arrays: dict[str, np.ndarray], counts: Csr) -> np.ndarray:
    """The stored column-major order of the entries, checked to be exactly that: their
    (column, row) pairs strictly increasing (so it is a permutation, too)."""
    order = _array(arrays, "column_order")
    if order.dtype != np.int64 or order.shape != (counts.nnz,):
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    if counts.nnz:
        if order.min() < 0 or order.max() >= counts.nnz:
            raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
        keys = counts.indices[order].astype(np.int64) * counts.shape[0] + counts.row_ids()[order]
        if np.any(np.diff(keys) <= 0):
            raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    return order


def _build_idf(arrays: dict[str, np.ndarray], width: int) -> np.ndarray:
    """The stored idf: one finite float64 per term, each >= 1 as a smoothed idf is."""
    idf = _array(arrays, "idf")
    if (idf.dtype != np.float64 or idf.shape != (width,)
            or not np.all(np.isfinite(idf) & (idf >= 1.0))):
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT)
    return idf


def _build_chunks(arrays: dict[str, np.ndarray], files: tuple[FileEntry, ...]) -> ChunkTable:
    """The chunk table; row i belongs to the file whose `rows` hold i (checked to tile)."""
    with_chunks = [entry for entry in files if entry.rows[1] > entry.rows[0]]
    sizes = np.array([end - start for start, end in (e.rows for e in with_chunks)], dtype=np.int64)
    try:
        return ChunkTable(
            sources=tuple(entry.source for entry in with_chunks),
            source_ids=np.repeat(np.arange(len(with_chunks), dtype=np.int64), sizes),
            ordinals=_array(arrays, "ordinals"),
            tokens=_array(arrays, "tokens"),
            texts=Strings(_array(arrays, "texts"), _array(arrays, "text_offsets")),
            heading_parts=Strings(
                _array(arrays, "heading_parts"), _array(arrays, "heading_part_offsets")
            ),
            heading_offsets=_array(arrays, "heading_offsets"),
            location_units=_array(arrays, "location_units"),
            location_numbers=_array(arrays, "location_numbers"),
        )
    except ValueError as error:
        raise CacheError(messages.CACHE_ARRAYS_CORRUPT) from error


def _parse_json(raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw)
    # ValueError: bad JSON or UTF-8, an integer too long to convert; RecursionError: nesting
    # deeper than the parser's stack (a 200k-deep list).
    except (ValueError, RecursionError) as error:
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


def _parse_files(raw: dict[str, Any]) -> tuple[FileEntry, ...]:
    """Files are stored column-wise: one list per field, checked in bulk (fast to load)."""
    columns = {name: _field(raw, name, list) for name in (*FILE_COLUMNS, "skipped")}
    if len({len(column) for column in columns.values()}) > 1:
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="files"))
    for name, kind in FILE_COLUMNS.items():
        if not _all_of(kind, columns[name]):
            raise CacheError(messages.CACHE_BAD_MANIFEST.format(field=name))
    if any(size < 0 for size in columns["chunks"]):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="chunks"))
    if not all(reason is None or type(reason) is str for reason in columns["skipped"]):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="skipped"))
    if not all(_all_of(str, notices) for notices in columns["notices"]):
        raise CacheError(messages.CACHE_BAD_MANIFEST.format(field="notices"))
    ends = list(accumulate(columns["chunks"]))
    return tuple(
        map(
            FileEntry,
            columns["source"],
            columns["sha256"],
            columns["size"],
            columns["mtime_ns"],
            columns["sections"],
            zip([0, *ends], ends, strict=False),
            columns["skipped"],
            map(tuple, columns["notices"]),
        )
    )


def _all_of(kind: type, values: Iterable[Any]) -> bool:
    """Exact type check of every item (so a JSON `true` never passes for an int)."""
    return all(type(value) is kind for value in values)


def _files_json(files: tuple[FileEntry, ...]) -> dict[str, list[Any]]:
    """The columns `_parse_files` reads. Rows must tile in file order, as `build` leaves them."""
    return {
        "source": [entry.source for entry in files],
        "sha256": [entry.sha256 for entry in files],
        "size": [entry.size for entry in files],
        "mtime_ns": [entry.mtime_ns for entry in files],
        "sections": [entry.sections for entry in files],
        "chunks": [entry.rows[1] - entry.rows[0] for entry in files],
        "notices": [list(entry.notices) for entry in files],
        "skipped": [entry.skipped for entry in files],
    }
