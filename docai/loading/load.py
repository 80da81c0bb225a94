"""load_file: one path in, one LoadResult out, never an exception for a bad file.

Each parse is bounded in time; a parse that can blow up where Python cannot stop it
(PDFium's C code), or one called from a thread other than the main one (where the timer
signal of `deadline` cannot reach), runs in a child process limited in memory and time
(`isolated`), whose crash becomes a skipped file with its reason.
"""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from docai import messages
from docai.loading.deadline import TimeLimitExceeded, time_limit
from docai.loading.discover import outside_target
from docai.loading.formats import Format, format_for, parsed_as
from docai.loading.isolated import PARSE_MEMORY_BYTES, Failed, can_isolate, parse_isolated
from docai.loading.names import display_name, source_name
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import DEFAULT_MAX_BYTES, Unreadable, format_size, read_bytes, text_of
from docai.loading.transcripts import is_transcript
from docai.records import Document, Notice, Skipped

# How long one file may take to parse: this many seconds, plus PARSE_SECONDS_PER_MIB for
# each MiB of its text. Real pages parse at about 2 MiB/s here, so even a 20 MiB file on a
# machine several times slower stays far inside; only a pathological file (1 MiB of `[`
# keeps markdown-it busy for minutes) reaches it.
PARSE_SECONDS_MIN = 10.0
PARSE_SECONDS_PER_MIB = 3.0
_MIB = 1024 * 1024
# Formats whose parser is C code that no timer signal interrupts and that may take
# gigabytes (a PDF whose form XObjects fan out): always parsed in a limited child, and so
# is a compressed one (`manual.pdf.gz`, inflated in the child too). With the modules the
# parse imports, imported here first so that each child inherits them instead of
# importing them again (0.1 s a PDF).
ISOLATED_SUFFIXES = MappingProxyType({".pdf": ("pypdfium2", "docai.loading.pdf")})


@dataclass(frozen=True, slots=True)
class LoadResult:
    """Exactly one of `document` / `skipped` is set; `notices` may accompany either."""

    document: Document | None
    skipped: Skipped | None
    notices: tuple[Notice, ...] = ()


def load_file(
    root: Path,
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    follow_links: bool = False,
    time_limit_s: float | None = None,
    link_roots: tuple[str, ...] = (),
    data: bytes | None = None,
) -> LoadResult:
    """Read, decode and parse `path`; problems become a `Skipped` with a pt-BR reason.

    Files over `max_bytes` (20 MB by default) are skipped unread: such files are data dumps
    or generated exports, and parsing them would stall the index build for little value.
    A file that resolves outside `root` (through a symlink) is not read unless
    `follow_links`. A parse that takes longer than `time_limit_s` (by default
    `parse_time_limit` of the text) is abandoned and the file skipped. `link_roots`: as
    `discover.scan`'s; an include then stays inside the file's own folder. `data`: the
    file's bytes, when the caller read them already (`read_file`, with the same checks).
    """
    source = source_name(root, path)
    kind = format_for(path)
    if kind is None:
        unsupported = messages.LOAD_SKIP_UNSUPPORTED.format(
            suffix=path.suffix.lower() or messages.NO_DOCUMENTS_NO_SUFFIX)
        return LoadResult(None, Skipped(source, unsupported))
    if not follow_links and (outside := outside_link_reason(root, path, link_roots)) is not None:
        return LoadResult(None, Skipped(source, outside))
    content: str | bytes
    notices: tuple[Notice, ...]
    if data is None:
        read_raw = read_bytes(path, max_bytes=max_bytes,
                              inside=None if follow_links else folders_of(root, link_roots))
        if isinstance(read_raw, Unreadable):
            return LoadResult(None, Skipped(source, read_raw.reason))
        data = read_raw
    if kind.binary:
        if not data.strip():
            return LoadResult(None, Skipped(source, messages.LOAD_SKIP_EMPTY))
        content, notices = data, ()
    else:
        read = text_of(data, path)
        if isinstance(read, Unreadable):
            return LoadResult(None, Skipped(source, read.reason))
        content = read.text
        notices = _encoding_notices(source, read.codec, read.encoding_name, read.repaired)
        if is_transcript(content):
            return LoadResult(None, Skipped(source, messages.LOAD_SKIP_TRANSCRIPT), notices)
    seconds = parse_time_limit(len(content)) if time_limit_s is None else time_limit_s
    origin = Origin(_own_root(root, source, link_roots), path)
    try:
        parsed = _parse(kind, content, origin, seconds)
    except RecursionError:  # pathologically deep nesting, e.g. thousands of nested <div>s
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_TOO_NESTED), notices)
    except TimeLimitExceeded:
        reason = messages.LOAD_SKIP_TOO_SLOW.format(seconds=_seconds(seconds))
        return LoadResult(None, Skipped(source, reason), notices)
    except UnusableFile as unusable:
        return LoadResult(None, Skipped(source, unusable.reason), notices)
    if isinstance(parsed, Failed):
        return LoadResult(None, Skipped(source, _failure_reason(parsed)), notices)
    notices += tuple(Notice(source, note) for note in parsed.notes)
    if not parsed.sections:
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_NO_TEXT), notices)
    return LoadResult(Document(source, parsed.title, parsed.sections), None, notices)


def _parse(kind: Format, content: str | bytes, origin: Origin,
           seconds: float) -> Parsed | Failed:
    """`kind.parse`, in a limited child when it must be (see the module's docstring)."""
    preload = ISOLATED_SUFFIXES.get(parsed_as(origin.path))
    apart = preload is not None or threading.current_thread() is not threading.main_thread()
    if apart and can_isolate():
        for module in preload or ():
            importlib.import_module(module)
        return parse_isolated(lambda: kind.parse(content, origin), seconds)
    with time_limit(seconds):
        return kind.parse(content, origin)


def _failure_reason(failed: Failed) -> str:
    if failed.kind == "unusable":
        return failed.detail
    if failed.kind == "nested":
        return messages.LOAD_SKIP_TOO_NESTED
    if failed.kind == "memory":
        return messages.LOAD_SKIP_PARSE_MEMORY.format(limit=format_size(PARSE_MEMORY_BYTES))
    if failed.kind == "error":
        return messages.LOAD_SKIP_PARSE_ERROR.format(error=failed.detail)
    return messages.LOAD_SKIP_PARSE_CRASHED.format(how=failed.detail,
                                                   limit=format_size(PARSE_MEMORY_BYTES))


def folders_of(root: Path, link_roots: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The real folders a file of `root` may be read from: `root`, and the user's folders
    when several are read as one."""
    return (os.path.realpath(root), *link_roots)


def outside_link_reason(root: Path, path: Path, link_roots: tuple[str, ...] = ()) -> str | None:
    """Why `path` is not read unless the user passes --follow-links: it leads outside
    `root` through a symlink (checked again here, as it may have changed since the walk)."""
    target = outside_target(root, path, link_roots)
    if target is None:
        return None
    return messages.DISCOVER_SKIP_LINK_OUTSIDE.format(target=display_name(target))


def _own_root(root: Path, source: str, link_roots: tuple[str, ...]) -> Path:
    """The folder a file's includes must stay in: `root`, or the user's folder (the link
    named by the source's first part) when several are read as one."""
    return root / source.split("/", 1)[0] if link_roots and "/" in source else root


def parse_time_limit(characters: int) -> float:
    """Seconds one file of `characters` may take to parse (see PARSE_SECONDS_MIN)."""
    return PARSE_SECONDS_MIN + PARSE_SECONDS_PER_MIB * characters / _MIB


def _encoding_notices(
    source: str, codec: str, encoding_name: str, repaired: int
) -> tuple[Notice, ...]:
    if repaired:
        return (Notice(source, messages.LOAD_NOTICE_REPAIRED.format(count=repaired)),)
    if codec in ("utf-8", "utf-8-sig"):
        return ()
    return (Notice(source, messages.LOAD_NOTICE_ENCODING.format(encoding=encoding_name)),)


def _seconds(seconds: float) -> str:
    """'10', '12,9', '0,5': one decimal at most, with a pt-BR comma."""
    return f"{seconds:.1f}".rstrip("0").rstrip(".").replace(".", ",")
