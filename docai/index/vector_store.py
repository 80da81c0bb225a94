"""Chunk embeddings on disk: one `.npz` per embedding model, keyed by chunk checksum.

Why keyed by the checksum of the chunk text (not by file or row): embedding is the slow
part (a network round trip per batch, seconds per hundred chunks on a CPU), and a chunk
whose text did not change has the same vector whatever file or position it moved to. So
an edited file costs only its changed chunks.

Why one file per model: vectors of two models live in different spaces (and often have
different dimensions); switching `--embed-model` back and forth must not re-embed.

The file holds only plain arrays (`keys` as fixed-width unicode, `vectors` as float32,
scalars for format, model and dimension), read with `allow_pickle=False`. Anything
unexpected raises `CacheError` with a pt-BR reason; the caller re-embeds, never trusts a
half-valid file (`storage.read_npz` turns whatever numpy's parser raises into that).
Writes are atomic (temp file in the same folder, fsync, `os.replace`), so two processes
saving at once leave one complete file, never a mix. They also hold the
cache folder's lock, not for consistency (there is no second file to keep in step with,
unlike the lexical cache) but so that each save can sweep the temp files of a killed one.
Like every cache file, it is private (0600, in a 0700 folder) whatever the umask.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docai import messages
from docai.errors import CacheError
from docai.index.storage import DamagedArrays, make_private_dirs, read_npz, write_atomic_locked

FORMAT_VERSION = 1
CHECKSUM_DTYPE = np.dtype("<U64")  # sha256 hex digest of the chunk text
_ARRAYS = ("format_version", "model", "dimension", "keys", "vectors")


@dataclass(frozen=True, eq=False)
class StoredVectors:
    """Unit-length float32 `vectors[i]` for the chunk whose text has checksum `keys[i]`."""

    model: str
    keys: np.ndarray  # CHECKSUM_DTYPE, shape (n,)
    vectors: np.ndarray  # float32, shape (n, dimension)

    def __post_init__(self) -> None:
        if self.keys.ndim != 1 or self.vectors.ndim != 2 or len(self.keys) != len(self.vectors):
            raise ValueError(f"{self.keys.shape} keys for vectors of shape {self.vectors.shape}")

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def by_key(self) -> dict[str, np.ndarray]:
        return dict(zip(self.keys.tolist(), self.vectors, strict=True))


def checksum(text: str) -> str:
    """The key of a chunk: sha256 hex of its text (what the model actually embeds).

    `surrogatepass`: a heading made from a file name that is not valid UTF-8 carries lone
    surrogates; any other text hashes exactly as plain UTF-8."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def store_path(cache_dir: Path, model: str) -> Path:
    """`embeddings-<slug>-<hash>.npz` in the index cache folder.

    The slug makes the file recognisable; the short hash keeps names that slugify alike
    (`bge:m3` and `bge-m3`) apart.
    """
    slug = re.sub(r"[^a-z0-9._-]+", "-", model.lower()).strip("-.") or "model"
    digest = hashlib.sha256(model.encode("utf-8")).hexdigest()[:8]
    return cache_dir / f"embeddings-{slug}-{digest}.npz"


def load(path: Path, model: str) -> StoredVectors | None:
    """The stored vectors of `model`; None when there is no file yet.

    Raises CacheError (reason in pt-BR) for a file that exists but cannot be trusted:
    unreadable, truncated, not ours, another model's, or with inconsistent shapes.
    """
    name = path.name
    try:
        arrays = read_npz(path)
    except (FileNotFoundError, NotADirectoryError):  # none yet, or a file where it would be
        return None
    except DamagedArrays as error:
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name)) from error
    except OSError as error:
        reason = error.strerror or error
        raise CacheError(messages.CACHE_UNREADABLE.format(reason=reason)) from error
    if not arrays.keys() >= set(_ARRAYS):
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name))
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
        keys.dtype != CHECKSUM_DTYPE
        or keys.ndim != 1
        or vectors.dtype != np.float32
        or vectors.shape != (len(keys), dimension)
        or (dimension < 1 and len(keys) > 0)
        or not np.isfinite(vectors).all()
    ):
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name))
    return StoredVectors(model=found, keys=keys, vectors=vectors)


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
            keys=stored.keys.astype(CHECKSUM_DTYPE, copy=False),
            vectors=stored.vectors.astype(np.float32, copy=False),
        ),
    )


def _scalar(array: np.ndarray, kind: str, name: str) -> np.ndarray:
    """`array` when it is a 0-d array of dtype kind `kind` ("i" int, "U" str)."""
    if array.shape != () or array.dtype.kind != kind:
        raise CacheError(messages.DENSE_STORE_CORRUPT.format(file=name))
    return array
