"""`docai store list|drop`: a team admin's view of the shared store, and dropping a collection.

`list` shows every collection (files, chunks, the share embedded by each model, when an
indexing run last changed it, its size on disk); `--json` gives the same as one object.
`drop NOME` deletes a collection with every row of it, after a confirmation on a terminal
(a script says `--yes`); it waits for an indexer of that collection to finish first.
"""

from __future__ import annotations

import sys
from typing import Any

from docai import messages
from docai.cli.terminal_text import json_text, one_line
from docai.errors import SettingsError
from docai.redaction import redact_url
from docai.settings import Settings


def run(settings: Settings, action: str, name: str | None, *, yes: bool) -> int:
    if not settings.store:
        raise SettingsError(messages.STORE_COMMAND_NEEDS_STORE)
    from docai.cli.startup import warn_about_store_password
    from docai.store import admin  # psycopg only when a store is used

    warn_about_store_password(settings.store, sys.stderr)

    if action == "list":
        summary = admin.list_collections(settings.store)
        if settings.json_output:
            print(json_text(_as_json(summary)))
        else:
            print("\n".join(_human(summary, settings.store)))
        return 0
    collection = name or settings.collection
    if not collection:
        raise SettingsError(messages.STORE_DROP_NEEDS_NAME)
    shown = redact_url(settings.store)
    if not yes and not _confirmed(messages.STORE_CONFIRM_DROP.format(
            name=one_line(collection), url=shown)):
        print(messages.STORE_DROP_KEPT)
        return 0 if sys.stdin is not None and sys.stdin.isatty() else 2

    def say(line: str) -> None:
        print(one_line(line), file=sys.stderr, flush=True)

    files, chunks = admin.drop_collection(settings.store, collection, say)
    print(messages.STORE_DROPPED.format(name=one_line(collection), files=files, chunks=chunks,
                                        url=shown))
    return 0


def collection_status(settings: Settings) -> int:
    """`docai status --store`: the collection's line of `docai store list` (or its JSON)."""
    from docai.store import admin

    url = settings.store or ""
    summary = admin.StoreSummary(
        (admin.collection_summary(url, settings.resolved_collection()),), 0)
    if settings.json_output:
        print(json_text(_as_json(summary)["collections"][0]))
    else:
        print("\n".join(_human(summary, url)[1:-1]))
    return 0


def _confirmed(question: str) -> bool:
    if sys.stdin is None or not sys.stdin.isatty():
        print(messages.ERROR_PREFIX.format(message=messages.STORE_DROP_NEEDS_YES),
              file=sys.stderr)
        return False
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().casefold() in ("s", "sim", "y", "yes")


def _as_json(summary: Any) -> dict[str, Any]:
    return {
        "collections": [{
            "name": c.name, "files": c.files, "chunks": c.chunks,
            "embedded": {model: count for model, count in c.embedded},
            "updated": c.updated.isoformat() if c.updated else None,
            "size_bytes": c.size_bytes, "building": c.building,
        } for c in summary.collections],
        "vectors_bytes": summary.vectors_bytes,
    }


def _human(summary: Any, url: str) -> list[str]:
    if not summary.collections:
        return [messages.STORE_LIST_EMPTY.format(url=redact_url(url))]
    lines = [messages.STORE_LIST_HEADER.format(url=redact_url(url))]
    for c in summary.collections:
        embedded = ", ".join(
            messages.STORE_LIST_EMBEDDED.format(model=one_line(model),
                                                percent=100 * count // max(c.chunks, 1))
            for model, count in c.embedded) or messages.STORE_LIST_NOT_EMBEDDED
        when = (c.updated.astimezone().strftime("%Y-%m-%d %H:%M") if c.updated
                else messages.STORE_LIST_NEVER)
        lines.append(messages.STORE_LIST_LINE.format(
            name=one_line(c.name), files=c.files, chunks=c.chunks, embedded=embedded,
            updated=when, size=_size(c.size_bytes)))
        if c.building:
            lines.append(messages.STORE_LIST_BUILDING)
    lines.append(messages.STORE_LIST_VECTORS.format(size=_size(summary.vectors_bytes)))
    return lines


def _size(count: int) -> str:
    if count < 1 << 20:
        return f"{count / 1024:.0f} KB"
    if count < 1 << 30:
        return f"{count / (1 << 20):.1f} MB"
    return f"{count / (1 << 30):.2f} GB"
