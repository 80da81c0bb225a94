"""The REPL's background embedding pass: the rest of the collection is embedded while the
prompt waits for the user, and paused while a question is answered.

Why only while idle: the pass and the chat model compete for the same CPU cores, and an
answer must never wait behind the pass. Until the pass ends a question embeds a few windows
of its own best candidates (`DenseRanking.rerank`), and the pass embeds the chunks questions
touched first. `/set embed off` pauses it for the session (a laptop on battery), `/set embed
on` resumes it. The pass hears a pause between two batches of a few windows, saves every
minute and when the REPL closes, and the next session goes on from where this one stopped
(or, once every window is embedded, finds the collection marked complete and does nothing).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from docai import messages
from docai.retrieval.dense import DenseRanking

# How long leaving the REPL waits for the batch in flight (about a second), silently, and at
# most (the thread is a daemon: a hung server cannot keep docai from exiting).
PATIENCE = 1.0
CLOSE_TIMEOUT = 30.0


class BackgroundPass:
    """Runs `dense.embed_pending` in a daemon thread whenever the session is idle.

    `on_change` is called (from the pass's thread) whenever `status()` may read differently:
    the prompt redraws its progress text then.
    """

    def __init__(self, dense: DenseRanking) -> None:
        self.dense = dense
        self.on_change: Callable[[], None] = lambda: None
        # Called (from the pass's thread) when the pass embedded the collection's last window.
        self.on_complete: Callable[[], None] = lambda: None
        self._idle = threading.Event()
        self._closing = threading.Event()
        self._done = 0
        self._total = 0
        self._running = False  # a progress display is open: there is something to show
        self.paused = False  # by the user (`/set embed off`): idle or not, it waits
        # The pass's own pace, for the time left: chunks and seconds while it ran (pauses
        # are not counted), and when it last reported.
        self._paced_chunks = 0
        self._paced_seconds = 0.0
        self._last_report = 0.0
        self._thread = threading.Thread(target=self._run, name="docai-embed", daemon=True)

    def start(self) -> BackgroundPass:
        self._thread.start()
        return self

    def replaced_by(self, dense: DenseRanking | None) -> BackgroundPass | None:
        """Stop this pass and start one for `dense` (a reindexed collection; None when
        dense is off), which redraws the same prompt and warns the same way."""
        self.close()
        if dense is None:
            return None
        dense.warn = self.dense.warn
        successor = BackgroundPass(dense)
        successor.paused = self.paused
        successor.on_change = self.on_change
        successor.on_complete = self.on_complete
        return successor.start()

    def idle(self) -> None:
        """The prompt waits for the user: embed (unless the user paused the pass)."""
        if not self.paused:
            self._idle.set()

    def pause(self) -> None:
        """Stop embedding after the batch in flight until `resume` (`/set embed off`)."""
        self.paused = True
        self._idle.clear()
        self.on_change()

    def resume(self) -> None:
        """Embed again whenever the session is idle (`/set embed on`)."""
        self.paused = False
        self.on_change()

    def pending(self) -> bool:
        """Whether the pass has work left (it has not found the collection complete)."""
        return self._thread.is_alive() and self.dense.active

    def busy(self) -> None:
        """A question or a command runs: pause after the batch in flight."""
        self._idle.clear()

    def close(self, say: Callable[[str], None] = lambda line: None) -> None:
        """Stop for good after the batch in flight, and save; `say` tells the user when
        that takes more than a moment (a slow server's batch)."""
        self._closing.set()
        self._idle.set()  # wake the thread so it can see it must end
        if self._thread.is_alive():
            self._thread.join(PATIENCE)
            if self._thread.is_alive():
                say(messages.DENSE_CLOSING)
                self._thread.join(CLOSE_TIMEOUT)
        self.dense.save()

    def status(self) -> str | None:
        """The progress line while the pass has work left, else None."""
        if self._total == 0 or self._done >= self._total:
            return None
        percent = 100 * self._done // self._total
        if self.paused:
            return messages.DENSE_BACKGROUND_PAUSED.format(
                done=self._done, total=self._total, percent=percent)
        if not self._running:
            return None
        left = self.seconds_left()
        if left is None:
            return messages.DENSE_BACKGROUND_STATUS.format(
                done=self._done, total=self._total, percent=percent)
        return messages.DENSE_BACKGROUND_STATUS_ETA.format(
            done=self._done, total=self._total, percent=percent, eta=duration(left))

    def seconds_left(self) -> float | None:
        """The time the pass still needs at its own pace (None before it has one)."""
        if self._paced_chunks == 0 or self._paced_seconds <= 0:
            return None
        return (self._total - self._done) * self._paced_seconds / self._paced_chunks

    def _run(self) -> None:
        while not self._closing.is_set():
            self._idle.wait()
            if self._closing.is_set():
                break
            report = self.dense.embed_pending(progress=self._progress, stop=self._paused,
                                              save_when_stopped=False)
            if report.complete and report.embedded:
                self.on_complete()
            if report.complete or not self.dense.active:
                break
        self._running = False
        self.on_change()

    def _paused(self) -> bool:
        return self._closing.is_set() or not self._idle.is_set()

    @contextmanager
    def _progress(self, label: str, total: int, done: int) -> Iterator[Callable[[int], None]]:
        """A `docai.records.Progress` that keeps the counts for `status`."""
        del label
        self._total, self._done, self._running = total, done, True
        self._last_report = time.monotonic()
        self.on_change()

        def advance(count: int) -> None:
            now = time.monotonic()
            self._done += count
            self._paced_chunks += count
            self._paced_seconds += now - self._last_report
            self._last_report = now
            self.on_change()

        try:
            yield advance
        finally:
            self._running = False
            self.on_change()


def duration(seconds: float) -> str:
    """A time left, as a person reads it: "40 s", "12 min", "1 h 05 min"."""
    whole = max(1, round(seconds))
    if whole < 120:
        return messages.DURATION_SECONDS.format(seconds=whole)
    minutes = round(whole / 60)
    if minutes < 60:
        return messages.DURATION_MINUTES.format(minutes=minutes)
    return messages.DURATION_HOURS.format(hours=minutes // 60, minutes=minutes % 60)
