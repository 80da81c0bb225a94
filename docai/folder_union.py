"""Several docs folders read as one collection (`--docs api --docs manual`, or a list in
config.toml): one folder docai keeps in its cache, holding a link per user folder, named
by the folder's label.

Why a folder of links: every stage after the walk (incremental builds keyed on each file's
checksum, the cache, freshness checks, citations, `/abrir`, the shared store) already works
on one root and sources relative to it. Under a root of links, a source is `api/guia.md`,
labelled by its folder, so citations stay unambiguous and each folder's files keep their own
checksums: changing one folder re-reads only its changed files. The links are trusted only
because the settings name their folders (`Settings.docs_folders`): a folder of links found on
disk is never trusted by itself, or a cloned repository could carry a link to `~/.ssh`.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from docai import messages
from docai.errors import SettingsError

UNION_FOLDER = "folders"  # under the cache base: one sub-folder per set of docs folders
_LABEL_CHARACTERS = re.compile(r"[^\w.-]+")


def labels(folders: tuple[Path, ...]) -> tuple[str, ...]:
    """A label per folder, in order: its name (`api`), widened by its parent's name when two
    folders share a name (`v1-docs`, `v2-docs`), numbered as a last resort. Pure."""
    names = [_label_text(folder.name) or "docs" for folder in folders]
    shared = {name for name in names if names.count(name) > 1}
    names = [_label_text(f"{folder.parent.name}-{folder.name}") or name if name in shared
             else name for folder, name in zip(folders, names, strict=True)]
    # A repeated label is numbered, skipping every number another folder's label already
    # spells (`q-a`, `q-a` and a folder labelled `q-a-2` give `q-a`, `q-a-3`, `q-a-2`).
    spelt = set(names)
    unique: list[str] = []
    for name in names:
        label, number = name, 1
        while label in unique or (label != name and label in spelt):
            number += 1
            label = f"{name}-{number}"
        unique.append(label)
    return tuple(unique)


def union_folder(folders: tuple[Path, ...], base: Path) -> Path:
    """The folder of links standing for `folders` (absolute, resolved, distinct), made under
    `base` when missing or wrong. Made in a temporary folder and renamed into place, so two
    docai processes never see half of it; SettingsError when it cannot be made."""
    named = tuple(zip(labels(folders), (str(folder) for folder in folders), strict=True))
    key = hashlib.sha256(os.fsencode(repr(named))).hexdigest()[:16]
    target = base / UNION_FOLDER / f"{'+'.join(label for label, _ in named)[:80]}-{key}"
    if _holds(target, named):
        return target
    staging: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".union-", dir=target.parent))
        for label, folder in named:
            os.symlink(folder, staging / label, target_is_directory=True)
        _replace(staging, target)
    except OSError as error:
        if staging is not None:
            _remove_links(staging)  # no `.union-*` folder left behind
        raise SettingsError(messages.FOLDERS_UNION_FAILED.format(
            path=target, reason=error.strerror or error)) from error
    return target


def _remove_links(folder: Path) -> None:
    """A staging folder of links gone, as far as it can be (never what the links lead to)."""
    try:
        for entry in os.scandir(folder):
            os.unlink(entry.path)
        os.rmdir(folder)
    except OSError:
        pass


def distinct_folders(folders: list[Path], origin: str) -> tuple[Path, ...]:
    """`folders` resolved, the same folder named twice kept once; SettingsError naming the
    folder when one holds another (its files would be read twice)."""
    resolved: list[Path] = []
    for folder in folders:
        real = folder.expanduser().resolve()
        if real not in resolved:
            resolved.append(real)
    for outer in resolved:
        for inner in resolved:
            if inner != outer and inner.is_relative_to(outer):
                raise SettingsError(messages.FOLDERS_NESTED.format(
                    origin=origin, inner=inner, outer=outer))
    return tuple(resolved)


def _label_text(text: str) -> str:
    return _LABEL_CHARACTERS.sub("-", text).strip("-.")


def _holds(target: Path, named: tuple[tuple[str, str], ...]) -> bool:
    """Whether `target` is the folder of exactly these links."""
    try:
        entries = {entry.name: entry for entry in os.scandir(target)}
    except OSError:
        return False
    if set(entries) != {label for label, _ in named}:
        return False
    return all(entries[label].is_symlink() and os.readlink(entries[label].path) == folder
               for label, folder in named)


def _replace(staging: Path, target: Path) -> None:
    """Put `staging` at `target`: renamed over an empty or missing target; a wrong one (a
    folder a crash left, links changed by hand) is moved aside and removed first."""
    if os.path.lexists(target):
        stale = Path(tempfile.mkdtemp(prefix=".stale-", dir=target.parent))
        os.rename(target, stale / "old")
        for entry in os.scandir(stale / "old"):
            os.unlink(entry.path)
        os.rmdir(stale / "old")
        os.rmdir(stale)
    try:
        os.rename(staging, target)
    except OSError:  # another process put the same folder in place first
        _remove_links(staging)
        if not target.is_dir():
            raise
