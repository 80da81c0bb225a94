"""A progress bar on stderr for long jobs (parsing files, embedding chunks); nothing at all
when not on a terminal or when the job is too short for a bar to be more than a flicker.

Stdout stays clean for `--json` and pipes; the bar is one line, redrawn in place (no
scrolling), with the time spent and the time left at the job's own pace, and transient so it
leaves no residue.
rich is imported only when a bar is shown: every command passes this function along, and
most never draw a bar (a warm start has nothing to parse), so importing rich up front
would cost them all ~50 ms.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(label: str, total: int, done: int = 0) -> Iterator[Callable[[int], None]]:
    """Yield `advance(count)`; a bar only on a terminal (a `docai.records.Progress`)."""
    if not sys.stderr.isatty():
        yield lambda count: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(label, total=total, completed=done)
        yield lambda count: bar.advance(task, count)
