"""A time limit on one file's parse, so one hostile file cannot stall a whole build.

Some inputs make a parser slow beyond reason (a megabyte of `[` keeps markdown-it busy
for minutes). The limit is a real-time timer (`SIGALRM`) that raises inside the parse: no
thread or process is needed, and pure-Python parsers stop between two bytecodes. Signals
only reach the main thread, so the limit applies where the build parses (a worker
process, or the main thread of `docai`); a parse called from another thread runs in a
child process instead (`loading.isolated`, whose parent kills it at the limit). Where
there is no `SIGALRM` (Windows), files are parsed without a limit.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from time import monotonic
from types import FrameType

# The shortest delay a timer can be re-armed with: an outer timer that would have fired
# while ours ran fires at once when ours ends, late but not lost.
_MIN_DELAY = 1e-6


class TimeLimitExceeded(BaseException):
    """The parse ran out of time. A BaseException, so no parser's `except Exception`
    fallback swallows it and carries on with the same hostile input."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeLimitExceeded in the block once `seconds` (wall-clock) have passed.

    A timer already armed by someone else (pytest-timeout uses the same one) is put back
    afterwards with what was left of it, and so is the previous handler.
    """
    if not _can_interrupt():
        yield
        return
    previous_handler = signal.signal(signal.SIGALRM, _expire)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if previous_handler is None
                      else previous_handler)
        if previous_delay > 0:
            remaining = previous_delay - (monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(remaining, _MIN_DELAY), previous_interval)


def _can_interrupt() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _expire(signum: int, frame: FrameType | None) -> None:
    raise TimeLimitExceeded
