"""discover: list the docs files under a folder, in an order that never changes between runs."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from docai import messages
from docai.errors import DocsFolderError
from docai.loading.formats import SUPPORTED_SUFFIXES

# Folders of tools and dependencies, not of the user's docs: a `node_modules` tree holds
# thousands of third-party READMEs that would drown the user's own pages in search results.
# A Sphinx HTML build keeps every page's reST source again in `_sources/*.txt` (half the
# passages of Python's manual, ranking above the pages they duplicate) and its theme in
# `_static`.
SKIPPED_DIR_NAMES = frozenset({"node_modules", "__pycache__", "_sources", "_static"})


def discover(root: Path) -> list[Path]:
    """Every supported file under `root` (as `root / relative`), sorted by relative POSIX path.

    Hidden folders (`.git`, `.venv`, `.cache`, ...) are skipped: they hold version-control
    internals, environments and caches, never docs meant for readers, and can be huge.
    Symlinked folders are followed once: each real folder is visited at most one time, so a
    link to an ancestor neither hangs nor lists files twice, and plain folders are walked
    before symlinked ones, so a file reachable both ways keeps its real name. Symlinked files
    are kept even when broken, so `load_file` can tell the user why they were skipped.
    Sub-folders that cannot be listed are left out; only an unusable `root` is an error.
    """
    found = [relative for relative, suffix in _walk(root) if suffix in SUPPORTED_SUFFIXES]
    return [root / relative for relative in sorted(found)]


def unsupported_suffixes(root: Path) -> Counter[str]:
    """How many files of each unsupported suffix (".rst", ".png"; "" for none) `discover`
    passes over: what to tell a user whose folder holds no document docai reads."""
    return Counter(suffix for _, suffix in _walk(root) if suffix not in SUPPORTED_SUFFIXES)


def _walk(root: Path) -> Iterator[tuple[str, str]]:
    """(relative POSIX path, lower-case suffix) of every file `discover` may consider."""
    _check_root(root)
    visited: set[tuple[int, int]] = set()
    real: list[tuple[Path, str]] = [(root, "")]
    linked: list[tuple[Path, str]] = []
    while real or linked:
        folder, prefix = real.pop() if real else linked.pop()
        if not _first_visit(folder, visited):
            continue
        for entry in _entries(folder, is_root=not prefix):
            relative = prefix + entry.name
            if not _is_dir(entry):
                if _is_file(entry):
                    yield relative, Path(entry.name).suffix.lower()
            elif not entry.name.startswith(".") and entry.name not in SKIPPED_DIR_NAMES:
                queue = linked if entry.is_symlink() else real
                queue.append((Path(entry.path), relative + "/"))


def _check_root(root: Path) -> None:
    try:
        exists, is_dir = root.exists(), root.is_dir()
    except OSError as error:  # e.g. a parent folder without search permission
        reason = error.strerror or str(error)
        raise DocsFolderError(
            messages.DOCS_UNREADABLE.format(path=root, reason=reason)
        ) from error
    if not exists:
        raise DocsFolderError(messages.DOCS_MISSING.format(path=root))
    if not is_dir:
        raise DocsFolderError(messages.DOCS_NOT_A_DIR.format(path=root))


def _entries(folder: Path, *, is_root: bool) -> list[os.DirEntry[str]]:
    """Entries sorted by name, so the walk (and so which link wins a tie) is repeatable."""
    try:
        with os.scandir(folder) as scan:
            return sorted(scan, key=lambda entry: entry.name)
    except OSError as error:
        if is_root:
            reason = error.strerror or str(error)
            raise DocsFolderError(
                messages.DOCS_UNREADABLE.format(path=folder, reason=reason)
            ) from error
        return []


def _first_visit(folder: Path, visited: set[tuple[int, int]]) -> bool:
    try:
        info = folder.stat()
    except OSError:
        return False
    key = (info.st_dev, info.st_ino)
    if key in visited:
        return False
    visited.add(key)
    return True


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file, or a symlink (even a broken one) that load_file will explain."""
    try:
        return entry.is_file() or entry.is_symlink()
    except OSError:
        return False

