"""discover: list the docs files under a folder, in an order that never changes between runs.

What the walk passes over for a reason the user may not guess (a link leaving the folder,
a link loop, a pipe named `x.md`, a folder it may not read) is reported as skipped, never
dropped without a word. What it leaves out by design (files of a format docai does not
read, hidden and build folders, what the ignore rules match) is `unread`: `docai status`
lists each with its reason and `docai index` counts them, without repeating them as
problems at every build.
"""

from __future__ import annotations

import errno
import os
import stat
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from docai import messages
from docai.errors import DocsFolderError
from docai.loading.formats import FORMATS, readable_name, suffix_of_name
from docai.loading.ignore import GIT_IGNORE_FILE, IGNORE_FILE, IgnoreRules
from docai.loading.names import display_name
from docai.records import Notice, Skipped

# Tools' folders (`node_modules`, `.git`, virtual environments) are left out by
# `loading.ignore`'s default rules, which a `.docaiignore` can override.
# A Sphinx HTML build keeps every page's reST source again in `_sources/*.txt` (half the
# passages of Python's manual, ranking above the pages they duplicate) and its theme in
# `_static`.
SKIPPED_DIR_NAMES = frozenset({"_sources", "_static"})
RULES_FILES = frozenset({IGNORE_FILE, GIT_IGNORE_FILE})  # at the folder's top
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, messages.DISCOVER_KIND_FIFO),
    (stat.S_ISSOCK, messages.DISCOVER_KIND_SOCKET),
    (stat.S_ISCHR, messages.DISCOVER_KIND_DEVICE),
    (stat.S_ISBLK, messages.DISCOVER_KIND_DEVICE),
)
# Why a file or folder is unread by design (`Unread.kind`).
UNREAD_FORMAT = "format"  # a file of a format docai does not read (`suffix` says which)
UNREAD_HIDDEN = "hidden"  # a hidden folder, not walked
UNREAD_BUILD = "build"  # a Sphinx build's `_sources` or `_static`, not walked
UNREAD_RULE = "rule"  # a file or folder the ignore rules leave out
UNREAD_RULES_FILE = "rules file"  # `.docaiignore`, `.gitignore`: read as rules, not as docs


@dataclass(frozen=True, slots=True)
class Unread:
    """A file (or a folder, `source` ending in '/') the walk leaves out by design, and why:
    `kind` is one of the UNREAD_ names; `suffix` is the format's (".png", "" for none)."""

    source: str
    kind: str
    suffix: str = ""

    @property
    def reason(self) -> str:
        """The pt-BR reason `docai status` shows beside the name."""
        if self.kind == UNREAD_FORMAT:
            if not self.suffix:
                return messages.DISCOVER_UNREAD_NO_SUFFIX
            return messages.LOAD_SKIP_UNSUPPORTED.format(suffix=self.suffix)
        return _UNREAD_REASONS[self.kind]


_UNREAD_REASONS = {UNREAD_HIDDEN: messages.DISCOVER_UNREAD_HIDDEN,
                   UNREAD_BUILD: messages.DISCOVER_UNREAD_BUILD,
                   UNREAD_RULE: messages.DISCOVER_UNREAD_RULE,
                   UNREAD_RULES_FILE: messages.DISCOVER_UNREAD_RULES_FILE}


@dataclass(frozen=True, slots=True)
class Discovery:
    """The docs files under a folder (`root / relative`, sorted by relative POSIX path),
    and what was passed over with a reason, sorted by source."""

    files: tuple[Path, ...]
    skipped: tuple[Skipped, ...]
    ignored: int = 0  # files and folders the ignore rules left out (`loading.ignore`)
    notices: tuple[Notice, ...] = ()  # rules of the ignore files that were skipped, and why
    unread: tuple[Unread, ...] = ()  # what is left out by design, sorted by source


def scan(
    root: Path, *, follow_links: bool = False, use_gitignore: bool = True,
    link_roots: tuple[str, ...] = (),
) -> Discovery:
    """Every supported file under `root`, and each thing passed over with its reason.

    Hidden folders (`.git`, `.venv`, `.cache`, ...) are skipped: they hold version-control
    internals, environments and caches, never docs meant for readers, and can be huge.
    A symlink (to a file or a folder) is followed only when it resolves inside `root`,
    unless `follow_links`: a link to `/etc` or `~/.ssh` would otherwise put files that are
    not docs into the index, search results and the model's prompt. Linked folders are
    followed once: each real folder is visited at most one time, so a link to an ancestor
    neither hangs nor lists files twice, and plain folders are walked before linked ones,
    so a file reachable both ways keeps its real name. Broken links are kept, so
    `load_file` can tell the user why they were skipped. Only an unusable `root` is an
    error. `link_roots`: real folders links may lead into besides `root` (the user's own
    folders, when several are read as one through `docai.folder_union`).
    """
    walk = _Walk(root, follow_links, use_gitignore, link_roots)
    found: list[str] = []
    unread = walk.unread
    for relative, key in walk.files():
        if key in FORMATS:
            found.append(relative)
        elif _rules_file(relative, several=bool(link_roots)):
            unread.append(Unread(relative, UNREAD_RULES_FILE))
        else:
            unread.append(Unread(relative, UNREAD_FORMAT, key))
    found.sort()
    skipped = [*walk.skipped, *_empty_doc_named_folders(walk.doc_named_folders, found)]
    return Discovery(
        files=tuple(root / relative for relative in found),
        skipped=tuple(sorted(skipped, key=lambda item: item.source)),
        ignored=walk.ignored,
        notices=walk.rules.notices,
        unread=tuple(sorted(unread, key=lambda item: item.source)),
    )


def supported_files(
    root: Path, *, follow_links: bool = False, use_gitignore: bool = True,
    link_roots: tuple[str, ...] = (),
) -> Iterator[str]:
    """The relative POSIX paths `scan` would list, unsorted and without the reasons: the
    cheap walk a freshness check repeats before each question."""
    walk = _Walk(root, follow_links, use_gitignore, link_roots)
    return (relative for relative, key in walk.files() if key in FORMATS)


def discover(root: Path, *, follow_links: bool = False) -> list[Path]:
    """The files of `scan(root)`, without the reasons."""
    return list(scan(root, follow_links=follow_links).files)


def outside_target(root: Path, path: Path, link_roots: tuple[str, ...] = ()) -> str | None:
    """The real path the file `path` leads to when it is a symlink to outside `root` (and
    outside each of `link_roots`), else None; None too when it leads nowhere (a broken link
    is reported as such).

    Only the file itself is checked here, for the message naming where its link leads; the
    read checks the real path of the file it opens, whatever folder above it became a link
    since the walk (`reading.read_bytes`'s `inside`).
    """
    if not os.path.islink(path):
        return None
    target = os.path.realpath(path)
    if not os.path.exists(target) or any(
            _inside(allowed, target) for allowed in (os.path.realpath(root), *link_roots)):
        return None
    return target


class _Walk:
    """One walk of a docs folder: the files it yields, what it reports on the way."""

    def __init__(self, root: Path, follow_links: bool, use_gitignore: bool = True,
                 link_roots: tuple[str, ...] = ()) -> None:
        _check_root(root)
        self.root = root
        self.real_root = os.path.realpath(root)
        self.allowed = (self.real_root, *link_roots)
        self.follow_links = follow_links
        self.skipped: list[Skipped] = []
        self.doc_named_folders: list[str] = []
        self.unread: list[Unread] = []
        labels = _link_names(root) if link_roots else ()
        self.rules = IgnoreRules.of(root, use_gitignore=use_gitignore, labels=labels)
        self.ignored = 0

    def files(self) -> Iterator[tuple[str, str]]:
        """(relative POSIX path, format key) of every file `discover` may consider: the key
        is in FORMATS for a file docai reads, else its lower-case suffix ("" for none)."""
        visited: set[tuple[int, int]] = set()
        real: list[tuple[str, str]] = [(os.fspath(self.root), "")]
        linked: list[tuple[str, str]] = []
        while real or linked:
            is_link = not real
            folder, prefix = real.pop() if real else linked.pop()
            if not self._first_visit(folder, prefix, visited, is_link=is_link):
                continue
            for entry in self._entries(folder, prefix):
                relative = prefix + entry.name
                kind = self._kind(entry, relative)
                if kind is not None and self.rules.ignored(relative, is_dir=kind != "file"):
                    self.ignored += 1
                    self.unread.append(Unread(relative + ("" if kind == "file" else "/"),
                                              UNREAD_RULE))
                    continue
                if kind == "file":
                    yield relative, suffix_of_name(entry.name)
                elif kind is not None:
                    if _doc_named_folder(entry.name):
                        self.doc_named_folders.append(relative)
                    queue = linked if kind == "linked folder" else real
                    queue.append((entry.path, relative + "/"))

    def _kind(self, entry: os.DirEntry[str], relative: str) -> str | None:
        """"file", "folder", "linked folder", or None for an entry not walked (reported
        when the user may have expected it to be)."""
        try:
            if not entry.is_symlink():
                if entry.is_dir(follow_symlinks=False):
                    return "folder" if self._walkable(entry.name, relative) else None
                if entry.is_file(follow_symlinks=False):
                    return "file"
                self._special(entry.name, relative, entry.stat(follow_symlinks=False))
                return None
            return self._link(entry, relative)
        except OSError:  # vanished meanwhile
            return None

    def _link(self, entry: os.DirEntry[str], relative: str) -> str | None:
        is_doc = readable_name(entry.name)
        try:
            info = os.stat(entry.path)
        except FileNotFoundError:  # broken: load_file names the missing target
            return "file"
        except OSError as error:
            if error.errno == errno.ELOOP and (is_doc or _walkable(entry.name)):
                target = display_name(_link_text(entry.path))
                self._skip(relative, messages.DISCOVER_SKIP_LINK_LOOP.format(target=target))
            return None
        is_dir = stat.S_ISDIR(info.st_mode)
        if is_dir and not self._walkable(entry.name, relative):
            return None
        target = os.path.realpath(entry.path)
        if not self.follow_links and not any(_inside(root, target) for root in self.allowed):
            if is_dir or is_doc:
                reason = messages.DISCOVER_SKIP_LINK_OUTSIDE.format(target=display_name(target))
                self._skip(relative, reason)
            elif stat.S_ISREG(info.st_mode):  # unread wherever it leads: by its format
                self.unread.append(Unread(relative, UNREAD_FORMAT, suffix_of_name(entry.name)))
            return None
        if is_dir:
            return "linked folder"
        if stat.S_ISREG(info.st_mode):
            return "file"
        self._special(entry.name, relative, info)
        return None

    def _special(self, name: str, relative: str, info: os.stat_result) -> None:
        """A pipe, socket or device is never opened (opening a FIFO waits for a writer for
        ever); one named like a doc is reported."""
        if readable_name(name):
            kind = next((kind for test, kind in _SPECIAL_KINDS if test(info.st_mode)),
                        messages.DISCOVER_KIND_OTHER)
            self._skip(relative, messages.DISCOVER_SKIP_SPECIAL.format(kind=kind))

    def _walkable(self, name: str, relative: str) -> bool:
        """Whether a folder is walked; one that is not is listed as unread."""
        if _walkable(name):
            return True
        kind = UNREAD_BUILD if name in SKIPPED_DIR_NAMES else UNREAD_HIDDEN
        self.unread.append(Unread(relative + "/", kind))
        return False

    def _first_visit(
        self, folder: str, prefix: str, visited: set[tuple[int, int]], *, is_link: bool
    ) -> bool:
        try:
            info = os.stat(folder)
        except FileNotFoundError:  # removed meanwhile
            return False
        except OSError as error:
            self._unreadable(folder, prefix, error)
            return False
        key = (info.st_dev, info.st_ino)
        if key not in visited:
            visited.add(key)
            return True
        if is_link:
            target = os.path.realpath(folder)
            # A link inside the folder it leads to is a loop; any other link to a folder
            # already walked is a second name for it.
            is_loop = _inside(target, os.path.realpath(os.path.dirname(folder)))
            message = messages.DISCOVER_SKIP_LINK_SEEN
            if is_loop:
                message = messages.DISCOVER_SKIP_LINK_LOOP
            self._skip(prefix.rstrip("/"), message.format(target=display_name(target)))
        return False

    def _entries(self, folder: str, prefix: str) -> list[os.DirEntry[str]]:
        """Entries sorted by name, so the walk (and so which link wins a tie) is repeatable."""
        try:
            with os.scandir(folder) as scan:
                return sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            self._unreadable(folder, prefix, error)
            return []

    def _unreadable(self, folder: str, prefix: str, error: OSError) -> None:
        """The root is an error; a sub-folder is reported and left out."""
        reason = error.strerror or str(error)
        if not prefix:
            raise DocsFolderError(
                messages.DOCS_UNREADABLE.format(path=folder, reason=reason)
            ) from error
        self._skip(prefix.rstrip("/"), messages.DISCOVER_SKIP_DIR_UNREADABLE.format(reason=reason))

    def _skip(self, source: str, reason: str) -> None:
        self.skipped.append(Skipped(source, reason))


def _link_names(root: Path) -> tuple[str, ...]:
    """The names of the links at the top of `root`: the labels of a folder of folders."""
    with os.scandir(root) as entries:
        return tuple(sorted(entry.name for entry in entries if entry.is_symlink()))


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


def _empty_doc_named_folders(folders: list[str], found: list[str]) -> list[Skipped]:
    """Folders named like a doc (`notas.md/`) are walked like any folder; one that gives no
    file is reported, since the user may have expected a document by that name."""
    skipped = []
    for folder in folders:
        position = bisect_right(found, folder + "/")
        if position == len(found) or not found[position].startswith(folder + "/"):
            reason = messages.DISCOVER_SKIP_DOC_NAMED_FOLDER.format(suffix=_suffix(folder))
            skipped.append(Skipped(folder, reason))
    return skipped


def _inside(real_root: str, real_path: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def _walkable(name: str) -> bool:
    return not name.startswith(".") and name not in SKIPPED_DIR_NAMES


def _rules_file(relative: str, *, several: bool) -> bool:
    """Whether `relative` is an ignore rules file docai reads as rules: at the folder's
    top, or at the top of each folder when several are read as one (`label/.gitignore`)."""
    parts = relative.split("/")
    return parts[-1] in RULES_FILES and len(parts) == (2 if several else 1)


def _doc_named_folder(name: str) -> bool:
    """Whether a folder is named like a file docai reads (`notas.md/`); README-like names
    without a suffix are not (an `install/` folder is common)."""
    key = suffix_of_name(name)
    return key.startswith(".") and key in FORMATS


def _suffix(name: str) -> str:
    """`Path(name).suffix`, lower-cased, without building a Path (a walk asks it per entry)."""
    suffix = os.path.splitext(name)[1]
    return "" if suffix == "." else suffix.lower()


def _link_text(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return path
