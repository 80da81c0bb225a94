"""Whether the docs folder changed since its index was read: a walk and a `stat` of each
file, compared with the snapshot taken then. No file is read or hashed here; the index's
own incremental update does that for what changed.

A file that changed since the snapshot less than `QUIET_NS` ago may still be being written
(an editor saving, a copy in progress): the folder is then not settled, and the caller
waits for a later question rather than index it half-way. Files the snapshot already held
as they are do not count, however recent: nothing is writing them now.

When a file was last written is the earlier of its modification time and its status-change
time (ctime). The modification time is whatever the file says (`touch -d`, an archive, a
camera's clock): one dated a year ahead would look "being written" for a year. The ctime
is the kernel's own clock at the last write, which no program can set: a file dated in the
future is settled once nothing has written it for `QUIET_NS`. A file dated in the past
(copied with its dates kept) stays settled at once, as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from docai.loading.discover import supported_files
from docai.settings import Settings

QUIET_NS = 2_000_000_000  # two seconds, as the index's own racy-write window


@dataclass(frozen=True, slots=True)
class FolderState:
    """Each file of the folder (path relative to it) with its size and modification time."""

    files: frozenset[tuple[str, int, int]]
    # When each file was last written, by the kernel's clock (ctime): not part of what the
    # folder holds (a `chmod` changes it), only of whether a change is finished.
    written_ns: Mapping[str, int] = field(default_factory=dict, compare=False, hash=False)

    def changes(self, older: FolderState) -> tuple[int, int, int]:
        """(new, changed, removed) files since `older`."""
        now = {name: (size, mtime) for name, size, mtime in self.files}
        before = {name: (size, mtime) for name, size, mtime in older.files}
        new = sum(1 for name in now if name not in before)
        removed = sum(1 for name in before if name not in now)
        changed = sum(1 for name, stat in now.items() if name in before and before[name] != stat)
        return new, changed, removed

    def touched(self, older: FolderState) -> frozenset[str]:
        """The files new or changed since `older` (relative paths): those a reread parsed."""
        return frozenset(name for name, _size, _mtime in self.files - older.files)

    def settled_since(self, older: FolderState, now_ns: int | None = None) -> bool:
        """Whether no file that changed since `older` was modified in the last `QUIET_NS`
        (none of them is still being written)."""
        now = time.time_ns() if now_ns is None else now_ns
        fresh = self.files - older.files
        return all(now - min(mtime, self.written_ns.get(name, mtime)) >= QUIET_NS
                   for name, _size, mtime in fresh)


def folder_state(settings: Settings) -> FolderState:
    """The folder as the index would find it now (the same walk and ignore rules)."""
    root = os.fspath(settings.docs_dir)
    files = set()
    written: dict[str, int] = {}
    for relative in supported_files(settings.docs_dir, follow_links=settings.follow_links,
                                    use_gitignore=settings.use_gitignore,
                                    link_roots=settings.link_roots()):
        try:
            info = os.stat(os.path.join(root, relative))
        except OSError:  # vanished meanwhile: the next look sees it gone
            continue
        files.add((relative, info.st_size, info.st_mtime_ns))
        written[relative] = info.st_ctime_ns
    return FolderState(frozenset(files), written)
