"""load_file: one path in, one LoadResult out, never an exception for a bad file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docai import messages
from docai.loading.deadline import TimeLimitExceeded, time_limit
from docai.loading.discover import outside_target
from docai.loading.formats import format_for
from docai.loading.names import display_name, source_name
from docai.loading.parsed import Origin, UnusableFile
from docai.loading.reading import DEFAULT_MAX_BYTES, Unreadable, read_bytes, read_text
from docai.loading.transcripts import is_transcript
from docai.records import Document, Notice, Skipped

# How long one file may take to parse: this many seconds, plus PARSE_SECONDS_PER_MIB for
# each MiB of its text. Real pages parse at about 2 MiB/s here, so even a 20 MiB file on a
# machine several times slower stays far inside; only a pathological file (1 MiB of `[`
# keeps markdown-it busy for minutes) reaches it.
PARSE_SECONDS_MIN = 10.0
PARSE_SECONDS_PER_MIB = 3.0
_MIB = 1024 * 1024


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
) -> LoadResult:
    """Read, decode and parse `path`; problems become a `Skipped` with a pt-BR reason.

    Files over `max_bytes` (20 MB by default) are skipped unread: such files are data dumps
    or generated exports, and parsing them would stall the index build for little value.
    A file that resolves outside `root` (through a symlink) is not read unless
    `follow_links`. A parse that takes longer than `time_limit_s` (by default
    `parse_time_limit` of the text) is abandoned and the file skipped. `link_roots`: as
    `discover.scan`'s; an include then stays inside the file's own folder.
    """
    source = source_name(root, path)
    kind = format_for(path)
    if kind is None:
        unsupported = messages.LOAD_SKIP_UNSUPPORTED.format(suffix=path.suffix)
        return LoadResult(None, Skipped(source, unsupported))
    if not follow_links and (outside := outside_link_reason(root, path, link_roots)) is not None:
        return LoadResult(None, Skipped(source, outside))
    content: str | bytes
    notices: tuple[Notice, ...]
    if kind.binary:
        read_raw = read_bytes(path, max_bytes=max_bytes)
        if isinstance(read_raw, Unreadable):
            return LoadResult(None, Skipped(source, read_raw.reason))
        content, notices = read_raw, ()
    else:
        read = read_text(path, max_bytes=max_bytes)
        if isinstance(read, Unreadable):
            return LoadResult(None, Skipped(source, read.reason))
        content = read.text
        notices = _encoding_notices(source, read.codec, read.encoding_name, read.repaired)
        if is_transcript(content):
            return LoadResult(None, Skipped(source, messages.LOAD_SKIP_TRANSCRIPT), notices)
    seconds = parse_time_limit(len(content)) if time_limit_s is None else time_limit_s
    try:
        with time_limit(seconds):
            parsed = kind.parse(content, Origin(_own_root(root, source, link_roots), path))
    except RecursionError:  # pathologically deep nesting, e.g. thousands of nested <div>s
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_TOO_NESTED), notices)
    except TimeLimitExceeded:
        reason = messages.LOAD_SKIP_TOO_SLOW.format(seconds=_seconds(seconds))
        return LoadResult(None, Skipped(source, reason), notices)
    except UnusableFile as unusable:
        return LoadResult(None, Skipped(source, unusable.reason), notices)
    notices += tuple(Notice(source, note) for note in parsed.notes)
    if not parsed.sections:
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_NO_TEXT), notices)
    return LoadResult(Document(source, parsed.title, parsed.sections), None, notices)


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
