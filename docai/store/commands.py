"""`docai index --store`: index (and with `--embed`, embed) into the shared store."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from docai import messages
from docai.cli.output.report import unread_line
from docai.cli.progress import progress_bar
from docai.cli.terminal_text import strip_controls
from docai.loading import display_name
from docai.redaction import redact_url
from docai.settings import Settings
from docai.store.indexer import StoreIndexReport, index_collection


def run_index(settings: Settings, *, embed: bool = False) -> int:
    def say(line: str) -> None:
        print(strip_controls(line), file=sys.stderr, flush=True)

    from docai.cli.startup import warn_about_store_password

    warn_about_store_password(settings.store or "", sys.stderr)
    name = settings.resolved_collection()
    outcome = 0

    def then(conn: psycopg.Connection[Any], report: StoreIndexReport) -> None:
        """The summary, then the embedding pass: still under the collection's lock."""
        nonlocal outcome
        for skipped in report.skipped:
            say(messages.STORE_INDEX_SKIPPED.format(source=display_name(skipped.source),
                                                    reason=skipped.reason))
        print(messages.STORE_INDEX_SUMMARY.format(
            files=report.files, new=report.new, changed=report.changed,
            removed=report.removed, unchanged=report.unchanged, chunks=report.chunks,
            name=strip_controls(name), url=redact_url(settings.store or ""),
            seconds=report.seconds), flush=True)
        counted = [messages.INDEX_IGNORED.format(count=report.ignored)] if report.ignored else []
        counted += filter(None, [unread_line(report.unread)])
        for line in counted:  # as `docai index` counts them for a local index
            print(strip_controls(line), flush=True)
        if not report.chunks:
            say(messages.ERROR_PREFIX.format(message=messages.STORE_EMPTY_COLLECTION.format(
                name=name, url=redact_url(settings.store or ""))))
            outcome = 2
        elif embed:
            from docai.store.embedding_pass import embed_collection

            outcome = embed_collection(
                conn, settings, name, say,
                progress_bar if sys.stderr.isatty() else _progress_lines)

    index_collection(settings, name, progress=progress_bar, say=say, then=then)
    return outcome


@contextmanager
def _progress_lines(label: str, total: int, done: int = 0) -> Iterator[Callable[[int], None]]:
    """Progress as one line a batch, where no bar is drawn (stderr not a terminal: a CI job's
    log), so a long embedding pass shows it is moving."""
    count = done

    def advance(step: int) -> None:
        nonlocal count
        count += step
        print(messages.STORE_PROGRESS_LINE.format(label=label, done=count, total=total,
                                                  percent=100 * count // max(total, 1)),
              file=sys.stderr, flush=True)

    yield advance
