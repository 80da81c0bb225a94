"""The cache folder on disk: private folders and files, its lock, atomic writes, and
generations switched by one rename.

Why generations: an index is two files (manifest and arrays) that must change together, and
no filesystem replaces two files in one step. So each save writes a new `gen-<id>` folder
holding both, makes it durable, and then replaces one symlink, `current`, to name it: a
crash (even `kill -9`) before that rename leaves the old index, after it the new one, never
a mix and never none. The folder's `manifest.json` and `arrays.npz` are fixed symlinks
through `current` (`manifest.json -> current/manifest.json`), so the index keeps one stable,
relative address for readers, tools and people, and a copied or moved cache folder stays
valid.

Why the lock: every writer holds it exclusively while it writes and cleans up, every reader
shares it while it reads (then holds what it read in memory). So a save deletes old
generations and a killed writer's leftovers only when no reader can be inside them.

Why private modes: the cache holds the text of the user's documents. Folders are created
0700 and files 0600 whatever the umask (an explicit mode, then `chmod`, since the umask
could also narrow the mode until docai itself can no longer write), without changing the
process's umask.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

import numpy as np

FOLDER_MODE = 0o700
FILE_MODE = 0o600
LOCK_NAME = "lock"
CURRENT = "current"
GENERATION_PREFIX = "gen-"
_GENERATION = re.compile(r"gen-[0-9a-f]{32}")


class DamagedArrays(Exception):
    """The bytes of an `.npz` are not a zip of plain arrays (raised by `read_npz`)."""


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of the `.npz` at `path`, read into memory with `allow_pickle=False`.

    Raises OSError when the file cannot be opened (FileNotFoundError when absent) and
    DamagedArrays for anything else wrong with it. Why so broad a net: numpy's and zipfile's
    parsers of hostile bytes raise far more than ValueError (NotImplementedError for a zip
    feature, tokenize.TokenError from a .npy header, MemoryError for a declared size, zlib
    errors...), and the set is not documented; a cache must never crash the program. Also
    refused: a bare `.npy`, a member that is not an array (numpy hands back its raw bytes),
    and text arrays holding code points Python cannot make a str of.
    """
    with open(path, "rb") as handle:
        try:
            loaded = np.load(handle, allow_pickle=False)
            if not isinstance(loaded, np.lib.npyio.NpzFile):
                raise DamagedArrays(f"{path.name} is a bare array")
            with loaded as npz:
                arrays = {name: npz[name] for name in npz.files}
        except DamagedArrays:
            raise
        except Exception as error:
            raise DamagedArrays(str(error)) from error
    for array in arrays.values():
        if not isinstance(array, np.ndarray) or not _valid_text(array):
            raise DamagedArrays(f"{path.name} has a member that is not a plain array")
    return arrays


def _valid_text(array: np.ndarray) -> bool:
    """False for a unicode array with a code point past U+10FFFF (str() of it would fail)."""
    if array.dtype.kind != "U" or array.size == 0 or array.dtype.itemsize == 0:
        return True
    code = np.dtype(np.uint32).newbyteorder(array.dtype.byteorder)
    codes = np.ascontiguousarray(array).reshape(-1).view(code)
    return bool(codes.max() <= 0x10FFFF)


def make_private_dirs(path: Path) -> None:
    """`mkdir -p path`: each folder it creates is 0700; folders that exist are left as
    they are (a parent may be the user's own). Raises OSError (e.g. a file in the way)."""
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise
        return
    except FileNotFoundError:
        if path.parent == path:
            raise
        make_private_dirs(path.parent)
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:  # made by a concurrent docai meanwhile
            if not path.is_dir():
                raise
            return
    os.chmod(path, FOLDER_MODE)


@contextmanager
def locked(directory: Path, mode: int, *, create: bool) -> Iterator[None]:
    """Hold `flock(mode)` on the folder's lock file (created 0600 when `create`).

    Readers (`create=False`) of a cache without a lock file, or of a read-only one, go
    without: no docai can be writing there (every writer creates the lock first)."""
    path = directory / LOCK_NAME
    try:
        fd = os.open(path, (os.O_RDWR | os.O_CREAT if create else os.O_RDONLY) | os.O_CLOEXEC,
                     FILE_MODE)
    except OSError:
        if create:
            raise
        yield
        return
    try:
        if create:
            _make_private(fd)
        fcntl.flock(fd, mode)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_atomic(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write `path` through a 0600 temp file in the same folder, fsync, then rename it over
    `path`: readers see the old file or the new one, never part of one."""
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed or deleted below)
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            _make_private(handle.fileno())
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def remove_leftovers(directory: Path) -> None:
    """Delete the temp files a killed writer left in `directory`. Call only under the
    exclusive lock, which every writer holds while writing: any temp file seen then is dead."""
    for leftover in directory.glob(".*.tmp"):
        leftover.unlink(missing_ok=True)


def new_generation(directory: Path, generation: str) -> Path:
    """An empty, private folder for generation `generation` (32 hex digits), made current
    by `switch_to` only once complete. Call under the exclusive lock."""
    path = directory / f"{GENERATION_PREFIX}{generation}"
    os.mkdir(path, FOLDER_MODE)
    os.chmod(path, FOLDER_MODE)
    return path


def switch_to(generation: Path, names: tuple[str, ...]) -> None:
    """Make the complete `generation` the current one, in one atomic rename, then delete
    every other generation. Call under the exclusive lock.

    `names` are the files each generation holds; the folder's fixed links to them are
    (re)made first, so they are in place before `current` names anything new.
    """
    directory = generation.parent
    _fsync_folder(generation)
    for name in names:
        _link(directory / name, f"{CURRENT}/{name}")
    current = directory / CURRENT
    if current.is_dir() and not current.is_symlink():
        # A copied cache (`cp -r` follows links): set that plain folder aside as one more
        # old generation; a crash right now leaves no index, which the next run rebuilds.
        os.replace(current, directory / f"{GENERATION_PREFIX}{uuid.uuid4().hex}")
    _link(current, generation.name)
    _fsync_folder(directory)
    remove_old_generations(directory, keep=generation.name)


def current_generation(directory: Path) -> str | None:
    """The name `current` points to, when it is a well-formed link."""
    try:
        target = os.readlink(directory / CURRENT)
    except OSError:
        return None
    return target if _GENERATION.fullmatch(target) else None


def remove_old_generations(directory: Path, keep: str | None) -> None:
    """Delete every generation but `keep` (the current one): earlier saves, and the
    unfinished folders of killed ones. Call only under the exclusive lock, which readers
    share while they read: no reader is inside them."""
    for path in directory.glob(f"{GENERATION_PREFIX}*"):
        if path.name != keep and not path.is_symlink() and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def _link(path: Path, target: str) -> None:
    """Make `path` a symlink to `target`, atomically (a temp link renamed over it)."""
    with suppress(OSError):
        if os.readlink(path) == target:
            return
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    os.symlink(target, temporary)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _make_private(fd: int) -> None:
    """0600 for a file docai owns, whatever the umask made it (or an older docai left)."""
    status = os.fstat(fd)
    if status.st_uid == os.geteuid() and status.st_mode & 0o777 != FILE_MODE:
        os.fchmod(fd, FILE_MODE)


def _fsync_folder(path: Path) -> None:
    """Make the folder's entries (new files, a rename) durable, where the OS allows it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF):  # no fsync of folders here
            raise
    finally:
        os.close(fd)


def write_atomic_locked(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """`write_atomic` under the folder's exclusive lock, after deleting the temp files a
    killed writer left (safe only under the lock every writer of the folder holds)."""
    with locked(path.parent, fcntl.LOCK_EX, create=True):
        remove_leftovers(path.parent)
        write_atomic(path, write)
