"""What the index of a docs folder (or of several read as one) holds, said the same way by
`docai status` and `/info`.

Files indexed by format, chunks, how many have their embeddings, each file skipped with its
reason, each file or folder not read by design (a format docai does not read, a hidden
folder, what the ignore rules left out) with its reason, when the index was last written,
and whether the folder changed since (by size and modification time, as a start decides
what to read again). It reads the stored index and walks the folder; it neither parses nor
writes, so it is cheap on a large folder and safe beside a running REPL.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docai import messages
from docai.cli.terminal_text import one_line
from docai.index import cache
from docai.index.cache import FileEntry
from docai.index.chunk_table import ChunkTable
from docai.index.reuse import Survey
from docai.loading import display_name
from docai.loading.formats import parsed_as
from docai.retrieval.dense import open_dense
from docai.settings import Settings

_FORMAT_NAMES = {"rst.txt": "rst", "rest.txt": "rst", "readme": "txt", "": "?"}


def describe(found: Survey, settings: Settings, *, embedded: bool = True) -> dict[str, Any]:
    """The status of the folder(s) `found` surveyed, as `--json` prints it; with `embedded`,
    how many chunks have their vectors too (the dense store is read, nothing embedded)."""
    previous = found.previous
    entries = previous.files if previous is not None else ()
    indexed = [entry for entry in entries if entry.skipped is None]
    saved = cache.saved_at_ns(found.directory) if previous is not None else None
    known = {entry.source for entry in entries}
    new = [source for source in found.sources if source not in known]
    touched = [source for source in found.sources
               if source in known and _modified(found.root / source, found.known[source])]
    removed = sorted(known - set(found.sources))
    skipped = [{"source": entry.source, "reason": entry.skipped}
               for entry in entries if entry.skipped is not None]
    skipped += [{"source": item.source, "reason": item.reason} for item in found.found.skipped]
    return {
        "docs": settings.shown_docs(),
        "folders": [str(folder) for folder in settings.docs_folders]
        or [str(found.root.expanduser().resolve())],
        "indexed": previous is not None,
        "indexed_at": None if saved is None
        else datetime.fromtimestamp(saved / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "files": len(indexed),
        "by_format": dict(sorted(Counter(_format(entry.source) for entry in indexed).items())),
        "chunks": len(previous.chunks) if previous is not None else 0,
        "skipped": sorted(skipped, key=lambda item: item["source"]),
        "ignored_by_rules": found.found.ignored,
        "unread": [{"source": item.source, "reason": item.reason} for item in found.found.unread],
        "changed_since": {"new": len(new), "changed": len(touched), "removed": len(removed)},
        "embedded": _embedded(settings, previous.chunks) if embedded and previous else None,
    }


def _embedded(settings: Settings, chunks: ChunkTable) -> dict[str, Any] | None:
    """The embedding model and how many chunks have its vectors (None with dense off)."""
    dense = open_dense(settings, chunks, warn=lambda line: None)
    if dense is None:
        return None
    return {"model": dense.embedder.name, "chunks": dense.embedded_chunks(),
            "of": len(chunks)}


def _modified(path: Path, entry: FileEntry) -> bool:
    """Whether a file's size or modification time differs from when it was indexed."""
    try:
        info = path.stat()
    except OSError:
        return True
    return (info.st_size, info.st_mtime_ns) != (entry.size, entry.mtime_ns)


def _format(source: str) -> str:
    """The format a file was read as: `md`, `rst` for Sphinx's `.rst.txt`, `man` for
    `tar.1.gz`, `txt` for a README without a suffix."""
    key = parsed_as(Path(source)).lstrip(".")
    return _FORMAT_NAMES.get(key, key)


def summary_lines(status: dict[str, Any], *, each_skipped: bool = True) -> list[str]:
    """`status` as `docai status` prints it (`/info`: without the lists of skipped and
    unread files, only how many)."""
    shown = one_line(status["docs"])
    lines = [messages.STATUS_FOLDERS.format(docs=shown) if len(status["folders"]) > 1
             else messages.STATUS_DOCS.format(docs=shown)]
    if not status["indexed"]:
        return [*lines, messages.STATUS_NOT_INDEXED]
    formats = ", ".join(f"{kind} {count}" for kind, count in status["by_format"].items())
    lines.append(messages.STATUS_FILES.format(files=status["files"], formats=formats or "—",
                                              chunks=status["chunks"]))
    if (embedded := status["embedded"]) is not None:
        lines.append(messages.STATUS_EMBEDDED.format(
            embedded=embedded["chunks"], chunks=embedded["of"], model=one_line(embedded["model"])))
    lines.append(messages.STATUS_WRITTEN.format(time=status["indexed_at"] or "?"))
    changed = status["changed_since"]
    lines.append(messages.STATUS_CHANGED.format(**changed) if any(changed.values())
                 else messages.STATUS_UP_TO_DATE)
    if status["ignored_by_rules"]:
        lines.append(messages.STATUS_IGNORED.format(count=status["ignored_by_rules"]))
    for key, header, see in (("skipped", messages.STATUS_SKIPPED, messages.STATUS_SKIPPED_SEE),
                             ("unread", messages.STATUS_UNREAD, messages.STATUS_UNREAD_SEE)):
        if status[key] and not each_skipped:
            lines.append(see.format(count=len(status[key])))
        elif status[key]:
            lines.append(header.format(count=len(status[key])))
            lines += _listed(status[key])
    return lines


def _listed(items: list[dict[str, str]]) -> list[str]:
    """One line per file: its name (shown safely) and its reason."""
    return [messages.STATUS_SKIPPED_LINE.format(source=display_name(item["source"]),
                                                reason=one_line(item["reason"]))
            for item in items]
