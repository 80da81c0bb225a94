"""load_file: one path in, one LoadResult out, never an exception for a bad file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from docai import messages
from docai.loading.formats import parser_for
from docai.loading.reading import DEFAULT_MAX_BYTES, Unreadable, read_text
from docai.records import Document, Notice, Skipped


@dataclass(frozen=True, slots=True)
class LoadResult:
    """Exactly one of `document` / `skipped` is set; `notices` may accompany either."""

    document: Document | None
    skipped: Skipped | None
    notices: tuple[Notice, ...] = ()


def load_file(root: Path, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> LoadResult:
    """Read, decode and parse `path`; problems become a `Skipped` with a pt-BR reason.

    Files over `max_bytes` (20 MB by default) are skipped unread: such files are data dumps
    or generated exports, and parsing them would stall the index build for little value.
    """
    source = source_name(root, path)
    parser = parser_for(path)
    if parser is None:
        reason = messages.LOAD_SKIP_UNSUPPORTED.format(suffix=path.suffix)
        return LoadResult(None, Skipped(source, reason))
    read = read_text(path, max_bytes=max_bytes)
    if isinstance(read, Unreadable):
        return LoadResult(None, Skipped(source, read.reason))
    notices: tuple[Notice, ...] = ()
    if not read.is_utf8:
        message = messages.LOAD_NOTICE_ENCODING.format(encoding=read.encoding_name)
        notices = (Notice(source, message),)
    try:
        title, sections = parser(read.text, path.stem)
    except RecursionError:  # pathologically deep nesting, e.g. thousands of nested <div>s
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_TOO_NESTED), notices)
    if not sections:
        return LoadResult(None, Skipped(source, messages.LOAD_SKIP_NO_TEXT), notices)
    return LoadResult(Document(source, title, sections), None, notices)


def source_name(root: Path, path: Path) -> str:
    """`path` relative to `root`, with '/' on every OS (the id users see and caches key on).

    Symlinks are not resolved: a linked file is named where it sits in the docs folder.
    """
    try:
        relative = path.relative_to(root)
    except ValueError:
        relative = Path(os.path.relpath(path.absolute(), root.absolute()))
    return relative.as_posix()
