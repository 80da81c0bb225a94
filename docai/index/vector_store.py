"""Window embeddings on disk: one `.npz` per embedding model, keyed by text checksum.

Why keyed by the checksum of the text (not by file or row): embedding is the slow part
(seconds per hundred windows on a CPU), and a text that did not change has the same vector
whatever file or position it moved to. So an edited file costs only its changed windows.

Why one file per model: vectors of two models live in different spaces (and often have
different dimensions); switching `--embed-model` back and forth must not re-embed.

Why this layout (format 2): a collection of 100k chunks has about 260k windows. Stored as
float32 with hex keys (format 1) that was 464 MB, read whole by every process that opened
it (1.8 s and as much memory), although a question reads the vectors of 20 chunks. Now the
keys are raw sha256 digests (32 bytes), sorted, so a lookup is a binary search and no
Python object is made per key; the vectors are float16 (cosines change by about 1e-3, far
below what separates two passages), and `load` leaves them in the file (`StoredRows`):
opening costs the keys alone, and only the rows a question reads come into memory. They are
read with `pread`, not mapped: a file cut short under a running process (another process's
crash, a full disk, a user's `truncate`) makes a mapped page fault with SIGBUS, which kills
the process without a word; a read that comes back short is an error docai reports.
An older format is reported and re-embedded, never read.

The file holds only plain arrays (`keys` as `S32`, `vectors` as float16, scalars for
format, model and dimension), read with `allow_pickle=False`. An optional `complete_for`
(`S32`) lists fingerprints of collections whose every window the file holds, so a finished
pass is not walked again at every start (`docai.retrieval.dense`); a file without it, or with
one that does not parse, simply has none (a reader of the same format that predates it
ignores it, a writer drops it: a walk, never a wrong answer). Anything unexpected raises
`CacheError` with a pt-BR reason; the caller re-embeds, never trusts a half-valid file.
Rows are not read at load, so damage is found when a row is read (`sound_rows`: a value
that is not finite, or a row whose length is not 1, as every embedder's rows are), and that
row is embedded again. Writes are atomic (temp file in the same folder, fsync,
`os.replace`; a process still reading the replaced file keeps its own open file), so two
processes saving at once leave one complete file, never a mix. They also
hold the cache folder's lock, not for consistency but so that each save can sweep the temp
files of a killed one. Like every cache file, it is private (0600, in a 0700 folder).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import struct
import weakref
import zipfile
from pathlib import Path
from typing import BinaryIO

import numpy as np

from docai import messages
from docai.byte_text import key_bytes
from docai.errors import CacheError
from docai.index.storage import DamagedArrays, make_private_dirs, write_atomic_locked

FORMAT_VERSION = 2
CHECKSUM_DTYPE = np.dtype("<U64")  # a key as callers hold it: sha256 hex digest of the text
DIGEST_DTYPE = np.dtype("S32")  # a key as stored: the raw digest
VECTOR_DTYPE = np.dtype("<f2")
_ARRAYS = ("format_version", "model", "dimension", "keys", "vectors")
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip member's local header: magic .. name, extra
# How far from 1 a stored row's length may be: float16 rounding moves it by about 1e-3.
NORM_TOLERANCE = 0.02
# Above this share of the rows, one read of the whole array beats one read per run of rows.
WHOLE_READ_SHARE = 0.25


class StoredVectors:
    """Unit-length `vectors[i]` for the text whose checksum is key i, keys sorted.

    Built from hex keys (`CHECKSUM_DTYPE`, any order: they are sorted here, the last of a
    repeated key kept) or from digests already sorted and unique (what `load` returns, its
    vectors mapped from the file)."""

    def __init__(
        self, model: str, keys: np.ndarray, vectors: np.ndarray,
        complete_for: frozenset[bytes] = frozenset(),
    ) -> None:
        if keys.ndim != 1 or vectors.ndim != 2 or len(keys) != len(vectors):
            raise ValueError(f"{keys.shape} keys for vectors of shape {vectors.shape}")
        self.model = model
        # Fingerprints of the collections whose every window these vectors cover.
        self.complete_for = complete_for
        if keys.dtype != DIGEST_DTYPE:
            digests = to_digests(keys.tolist())
            order = np.argsort(digests[::-1], kind="stable")  # reversed: the last one wins
            digests, first = np.unique(digests[::-1][order], return_index=True)
            keys, vectors = digests, vectors[::-1][order][first]
        self.digests = keys
        self.vectors = vectors

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def keys(self) -> np.ndarray:
        """The keys as hex checksums (`CHECKSUM_DTYPE`), in stored order."""
        # ljust: numpy drops a digest's trailing zero bytes when it hands it out.
        return np.array([digest.ljust(DIGEST_DTYPE.itemsize, b"\0").hex()
                         for digest in self.digests.tolist()], dtype=CHECKSUM_DTYPE)

    def by_key(self) -> dict[str, np.ndarray]:
        return dict(zip(self.keys.tolist(), self.rows(np.arange(len(self.digests))), strict=True))

    def find(self, digests: np.ndarray) -> np.ndarray:
        """The row of each of `digests` (S32), -1 where absent."""
        if not len(self.digests):
            return np.full(len(digests), -1, dtype=np.int64)
        at = np.searchsorted(self.digests, digests).clip(max=len(self.digests) - 1)
        return np.where(self.digests[at] == digests, at, -1)

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of `rows` as float32 (read from the file when left there). Raises
    `StoreCut` when the file was cut short since it was opened."""
        return np.asarray(self.vectors[rows], dtype=np.float32)


def to_digests(keys: list[str]) -> np.ndarray:
    """Hex checksums -> their raw digests (`DIGEST_DTYPE`)."""
    return np.array([bytes.fromhex(key) for key in keys], dtype=DIGEST_DTYPE).reshape(-1)


def checksum(text: str) -> str:
    """The key of a text: sha256 hex of it (what the model actually embeds); a heading
    made from a file name that is not valid UTF-8 hashes losslessly (`key_bytes`)."""
    return hashlib.sha256(key_bytes(text)).hexdigest()


def store_path(cache_dir: Path, model: str) -> Path:
    """`embeddings-<slug>-<hash>.npz` in the index cache folder.

    The slug makes the file recognisable; the short hash keeps names that slugify alike
    (`bge:m3` and `bge-m3`) apart.
    """
    slug = re.sub(r"[^a-z0-9._-]+", "-", model.lower()).strip("-.") or "model"
    digest = hashlib.sha256(model.encode("utf-8")).hexdigest()[:8]
    return cache_dir / f"embeddings-{slug}-{digest}.npz"


def load(path: Path, model: str) -> StoredVectors | None:
    """The stored vectors of `model`, mapped from the file; None when there is no file yet.

    Raises CacheError (reason in pt-BR) for a file that exists but cannot be trusted:
    unreadable, truncated, of an older format, not ours, another model's, with keys out of
    order or inconsistent shapes.
    """
    name = path.name
    try:
        arrays = _read(path)
    except (FileNotFoundError, NotADirectoryError):  # none yet, or a file where it would be
        return None
    except DamagedArrays as error:
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name)) from error
    except OSError as error:
        reason = error.strerror or error
        raise CacheError(messages.CACHE_UNREADABLE.format(reason=reason)) from error
    version = int(_scalar(arrays["format_version"], "i", name))
    if version != FORMAT_VERSION:
        raise CacheError(
            messages.DENSE_STORE_OTHER_FORMAT.format(found=version, expected=FORMAT_VERSION)
        )
    found = str(_scalar(arrays["model"], "U", name))
    if found != model:
        raise CacheError(messages.DENSE_STORE_OTHER_MODEL.format(found=found, expected=model))
    dimension = int(_scalar(arrays["dimension"], "i", name))
    keys, vectors = arrays["keys"], arrays["vectors"]
    if (
        keys.dtype != DIGEST_DTYPE
        or keys.ndim != 1
        or vectors.dtype != VECTOR_DTYPE
        or vectors.shape != (len(keys), dimension)
        or (dimension < 1 and len(keys) > 0)
        or (len(keys) > 1 and not bool((keys[1:] > keys[:-1]).all()))  # sorted, unique
    ):
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name))
    return StoredVectors(found, keys, vectors, _fingerprints(arrays.get("complete_for")))


def save(path: Path, stored: StoredVectors) -> None:
    """Write atomically. Raises OSError when the folder is unwritable."""
    make_private_dirs(path.parent)
    write_atomic_locked(
        path,
        lambda handle: np.savez(
            handle,
            format_version=np.asarray(FORMAT_VERSION, dtype=np.int64),
            model=np.asarray(stored.model, dtype=np.str_),
            dimension=np.asarray(stored.dimension, dtype=np.int64),
            keys=stored.digests,
            vectors=np.asarray(stored.vectors, dtype=VECTOR_DTYPE),
            complete_for=np.array(sorted(stored.complete_for), dtype=DIGEST_DTYPE).reshape(-1),
        ),
    )


def _fingerprints(array: np.ndarray | None) -> frozenset[bytes]:
    """The `complete_for` fingerprints; none when absent or not as `save` writes them."""
    if array is None or array.dtype != DIGEST_DTYPE or array.ndim != 1:
        return frozenset()
    return frozenset(digest.ljust(DIGEST_DTYPE.itemsize, b"\0") for digest in array.tolist())


def sound_rows(vectors: np.ndarray) -> np.ndarray:
    """Which rows can be trusted: finite, and of length 1 (or 0: an embedder's zero row
    matches nothing). A damaged file may hold others, finite ones included (every value
    scaled, a flipped exponent bit), which would score far above any true cosine."""
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.linalg.norm(vectors.astype(np.float64), axis=1)
    return np.isfinite(vectors).all(axis=1) & ((np.abs(norms - 1) <= NORM_TOLERANCE)
                                               | (norms == 0))


def identity(path: Path) -> tuple[int, int, int] | None:
    """What tells one saved file from the next (inode, size, mtime), None when absent."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _read(path: Path) -> dict[str, np.ndarray]:
    """Every array of the store, `vectors` mapped when stored uncompressed (as `save`
    writes it). Raises OSError when the file cannot be opened, DamagedArrays for anything
    else wrong with it: numpy's and zipfile's parsers of hostile bytes raise far more than
    ValueError, and the set is not documented (see `storage.read_npz`)."""
    with open(path, "rb") as handle:
        try:
            if handle.read(4) != b"PK\x03\x04":
                raise DamagedArrays(f"{path.name} is not an archive")
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                names = set(archive.namelist())
                if not names >= {f"{name}.npy" for name in _ARRAYS}:
                    raise DamagedArrays(f"{path.name} lacks an array")
                arrays = {name: _member(archive, name) for name in _ARRAYS if name != "vectors"}
                # A damaged marker costs a walk over the windows, not the vectors.
                with contextlib.suppress(Exception):
                    if "complete_for.npy" in names:
                        arrays["complete_for"] = _member(archive, "complete_for")
                info = archive.getinfo("vectors.npy")
                version = arrays["format_version"]
                if version.dtype.kind == "i" and version.size == 1 and version != FORMAT_VERSION:
                    arrays["vectors"] = np.zeros((0, 0), VECTOR_DTYPE)  # refused unread
                elif info.compress_type != zipfile.ZIP_STORED:
                    arrays["vectors"] = _member(archive, "vectors")
                else:
                    arrays["vectors"] = _mapped(path, handle, info)
        except DamagedArrays:
            raise
        except Exception as error:
            raise DamagedArrays(str(error)) from error
    return arrays


def _member(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    with archive.open(f"{name}.npy") as member:
        array = np.lib.format.read_array(member, allow_pickle=False)
    if not isinstance(array, np.ndarray):
        raise DamagedArrays(f"{name} is not an array")
    if array.dtype.kind == "U" and array.size and array.dtype.itemsize:
        codes = np.ascontiguousarray(array).reshape(-1).view(
            np.dtype(np.uint32).newbyteorder(array.dtype.byteorder))
        if codes.max() > 0x10FFFF:  # a code point Python cannot make a str of
            raise DamagedArrays(f"{name} holds text beyond Unicode")
    return array


def _mapped(path: Path, handle: BinaryIO, info: zipfile.ZipInfo) -> np.ndarray:
    """The stored `.npy` member `info`, mapped read-only from the file."""
    handle.seek(info.header_offset)
    magic, name_length, extra_length = _LOCAL_HEADER.unpack(handle.read(_LOCAL_HEADER.size))
    if magic != b"PK\x03\x04":
        raise DamagedArrays("bad member header")
    start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
    handle.seek(start)
    version = np.lib.format.read_magic(handle)
    reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
              else np.lib.format.read_array_header_2_0)
    shape, fortran, dtype = reader(handle, max_header_size=10_000)
    offset = handle.tell()
    if dtype != VECTOR_DTYPE or fortran or len(shape) != 2:
        raise DamagedArrays("vectors of another kind")
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    end = os.fstat(handle.fileno()).st_size
    if offset - start + size != info.file_size or offset + size > end:
        raise DamagedArrays("vectors cut short")
    if size == 0:
        return np.zeros(shape, dtype=dtype)
    # Read from the handle checked above, not reopened by path: a file another process
    # renamed into place meanwhile would otherwise be read at this file's offset.
    rows = StoredRows(handle, offset, (int(shape[0]), int(shape[1])), dtype, path.name)
    return rows  # type: ignore[return-value]  # an array in all but residence


class StoredRows:
    """A 2-d array left in its file and read on demand with `pread`: indexing it (any numpy
    index) reads just those rows; `np.asarray` reads it whole.

    Holds its own descriptor of the file (closed when the object goes), so a file renamed
    over it is not seen, and one cut short raises `StoreCut` instead of faulting."""

    ndim = 2

    def __init__(self, handle: BinaryIO, offset: int, shape: tuple[int, int],
                 dtype: np.dtype, name: str) -> None:
        self._name = name
        self._fd = os.dup(handle.fileno())
        weakref.finalize(self, os.close, self._fd)
        self._offset = offset
        self.shape = shape
        self.dtype = dtype
        self._row_bytes = shape[1] * dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0]

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        whole = self._run(0, self.shape[0])
        return whole if dtype is None else whole.astype(dtype, copy=False)

    def __getitem__(self, index: object) -> np.ndarray:
        rows = np.arange(self.shape[0])[index]  # type: ignore[call-overload]
        if rows.ndim == 0:
            return self[rows.reshape(1)][0]
        if len(rows) > WHOLE_READ_SHARE * self.shape[0]:
            return np.asarray(self)[rows]
        wanted, where = np.unique(rows, return_inverse=True)
        out = np.empty((len(wanted), self.shape[1]), dtype=self.dtype)
        if not len(wanted):  # no row asked: no run to read
            return out
        # Runs of consecutive rows, one read each.
        breaks = np.flatnonzero(np.diff(wanted) != 1) + 1
        for start, stop in zip(np.r_[0, breaks], np.r_[breaks, len(wanted)], strict=True):
            out[start:stop] = self._run(int(wanted[start]), int(stop - start))
        return out[where.reshape(-1)]

    def _run(self, first: int, count: int) -> np.ndarray:
        """Rows first..first+count, read straight into a new array (no copy of bytes)."""
        out = np.empty((count, self.shape[1]), dtype=self.dtype)
        view = memoryview(out.reshape(-1).view(np.uint8).data)
        start, done = self._offset + first * self._row_bytes, 0
        while done < len(view):
            read = os.preadv(self._fd, [view[done:]], start + done)
            if read == 0:  # the end of a file cut short
                raise StoreCut(messages.DENSE_STORE_CORRUPT.format(file=self._name))
            done += read
        return out


class StoreCut(CacheError):
    """The store's file became shorter than its header says while it was open."""


def _scalar(array: np.ndarray, kind: str, name: str) -> np.ndarray:
    """`array` when it is a 0-d array of dtype kind `kind` ("i" int, "U" str)."""
    if array.shape != () or array.dtype.kind != kind:
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name))
    return array
