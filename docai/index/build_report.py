"""`BuildReport`: what opening an index did, for `docai index` and the REPL banner.

Its own module so the commands can name it without importing the build machinery
(`docai.index.build`), which a warm start never needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.records import Notice, Skipped

if TYPE_CHECKING:
    from docai.loading.discover import Unread


@dataclass(frozen=True, slots=True)
class PhaseTimings:
    """Seconds spent per phase: scan (discover, stat, read cache), parse, index, save."""

    scan: float
    parse: float
    index: float
    save: float


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What build_index did, for `docai index` and the REPL banner.

    `files` counts the files indexed (not skipped); new/changed/unchanged partition every
    discovered file. `skipped` holds the files that gave no text and what the walk passed
    over (links out of the folder, pipes, folders it could not read), by source, each with
    its reason; a source is the real name: show it through `loading.display_name`.
    `cache_status` is None when the cache was valid (or absent), else a pt-BR line saying
    why it was rebuilt; `cache_warning` says the index could not be saved.
    """

    files: int
    new: int
    changed: int
    removed: int
    unchanged: int
    skipped: tuple[Skipped, ...]
    notices: tuple[Notice, ...]
    sections: int
    chunks: int
    tokens: int
    timings: PhaseTimings
    cache_status: str | None
    cache_warning: str | None
    ignored: int = 0  # files and folders the ignore rules left out (`loading.ignore`)
    unread: tuple[Unread, ...] = ()  # what the folder holds that docai does not read by design
