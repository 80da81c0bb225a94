"""A progress bar on stderr while many files are parsed; nothing at all when not on a terminal.

Stdout stays clean for `--json` and pipes; the bar is transient so it leaves no residue.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from docai import messages

# Below this many files parsing takes about a second: a bar would only flicker.
MIN_FILES_FOR_BAR = 50


@contextmanager
def file_progress(total: int, *, enabled: bool, done: int = 0) -> Iterator[Callable[[], None]]:
    """Yield `advance()`, to call once per parsed file; `done` files are already parsed."""
    if not enabled or total < MIN_FILES_FOR_BAR or not sys.stderr.isatty():
        yield lambda: None
        return
    bar = Progress(
        TextColumn(messages.PROGRESS_PARSING),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(messages.PROGRESS_PARSING, total=total, completed=done)
        yield lambda: bar.advance(task)
