"""The whole collection for a dense ranking: the resumable pass that embeds every window,
how much of the collection is embedded, and its windows' vectors stacked for ranking.

The chunks a question touched (its candidates, one window of the best few embedded for
it) are embedded first, whole: the next questions on the same subject find them ranked by
every window. The rest of the collection is embedded in order, in small resumable steps
(`embed_pending`: the REPL runs it in a background thread while it waits for the user,
`docai index --embed` to the end); it saves at least every `SAVE_INTERVAL_S` and when it
stops, and `stop` is heard between batches of a few windows, so a question, Ctrl-C or exit
waits for at most one batch.
Once every chunk has its vectors, the store remembers the collection as complete (by a
fingerprint of its chunk texts): the next process ranks the whole collection from its first
question, and the next session's pass does not walk its windows again (at 100k chunks that
walk cut and hashed about 400k windows, seconds of CPU at every start).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from docai import messages
from docai.llm.errors import LLMError
from docai.records import Progress, progress_for
from docai.retrieval.collection_scan import CollectionScan
from docai.retrieval.dense_embedding import WindowEmbedding
from docai.retrieval.dense_windows import DenseWindows

# Windows looked up and embedded per background step.
STEP_WINDOWS = 32
# How often the background pass saves. A save rewrites the whole store (about 200 MB and
# 1 s for 100k chunks), so saving every step would write terabytes over a large pass; a kill
# -9 loses at most this much embedding, and a stop (a question, Ctrl-C, exit) saves at once.
SAVE_INTERVAL_S = 60.0
# Windows' vectors read at once when stacking them for the whole-collection ranking.
STACK_BLOCK = 16_384
# Below this many chunks left to embed, a progress bar would only flicker.
MIN_CHUNKS_FOR_BAR = 16


@dataclass(frozen=True, slots=True)
class PassReport:
    """What `embed_pending` did: windows embedded, chunks whose windows all have vectors."""

    embedded: int
    chunks_done: int
    chunks: int

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks


class CollectionPass:
    """How far the embedding of one collection's windows is, and the pass that goes on."""

    def __init__(self, windows: DenseWindows, job: WindowEmbedding) -> None:
        self.windows = windows
        self.job = job
        self.vectors = windows.vectors
        self.cursor = 0  # chunks before it have every window's vector
        self.complete = False  # a pass (or the store's mark) found every chunk's vectors
        self.mark_read = False  # the store's completeness mark was looked for
        self.scan: CollectionScan | None = None
        # Chunks questions touched, embedded first (a deque: a question's thread appends
        # while the pass's pops, each call atomic).
        self.first: deque[int] = deque()
        # Chunks with every window's vector, once counted (a walk of the collection: done
        # once a process, then kept up to date by the pass and by questions).
        self.done: int | None = None

    def carry_on_from(self, other: CollectionPass) -> None:
        """Take what `other` (the same windows) found."""
        self.cursor, self.complete = other.cursor, other.complete
        self.scan, self.mark_read = other.scan, other.mark_read
        self.first, self.done = other.first, other.done

    def collection_scan(self) -> CollectionScan | None:
        """The stacked vectors of every window (built on first use: most sessions never
        rank this way), or None when some are missing or damaged (the pass then walks the
        collection again)."""
        if self.scan is None:
            self.scan = self._stacked()
            if self.scan is None:
                self.cursor, self.complete, self.done = 0, False, None
        return self.scan

    def _stacked(self) -> CollectionScan | None:
        """Every window's vector, stacked in the chunks' order a block at a time (read whole,
        a large collection would be held twice), or None if any is missing."""
        keys = [self.windows.keys(row) for row in range(len(self.windows))]
        counts = np.array([len(chunk) for chunk in keys], dtype=np.int64)
        every = [key for chunk in keys for key in chunk]
        stacked = np.empty((len(every), self.vectors.dimension), dtype=np.float32)
        for start in range(0, len(every), STACK_BLOCK):
            block = every[start:start + STACK_BLOCK]
            stacked[start:start + len(block)] = self.vectors.get(block)
            if self.vectors.missing(block):
                return None
        return CollectionScan.of(stacked, counts)

    def known_complete(self) -> bool:
        """Whether every chunk is known to have its vectors: a pass found them, or the
        store holds the mark of a pass that did (a hash of the chunk texts: a fraction of
        a second at 100k chunks, once per process)."""
        if not self.complete and not self.mark_read:
            self.mark_read = True
            if self.vectors.is_complete_for(self.windows.fingerprint()):
                self.cursor, self.complete = len(self.windows), True
        return self.complete

    def embedded_chunks(self) -> int:
        """How many chunks have every window's vector, wherever they are: a changed file's
        new chunks lower the count by their own number, not to the first of them (the
        pass embeds chunks questions touched first, and the rest in order). `docai search
        -v`, `/info` and the progress line all say this number. The first call walks the
        collection unless it is marked complete; the pass and questions keep it since."""
        if self.known_complete():
            return len(self.windows)
        if self.done is None:
            self.advance_cursor()
            rest = list(range(self.cursor, len(self.windows)))
            self.done = self.cursor + self._complete_rows(rest)
        return self.done

    def windows_to_embed(self, limit: int) -> int | None:
        """How many windows of the collection lack a vector, or None when over `limit`
        (the walk stops there, and a collection of more than `limit` chunks is not walked)."""
        if self.known_complete():
            return 0
        if len(self.windows) > limit:
            return None
        keys: set[str] = set()
        for row in range(len(self.windows)):
            keys.update(self.vectors.missing(self.windows.keys(row)))
            if len(keys) > limit:
                return None
        return len(keys)

    def touched(self, candidates: np.ndarray, embedded: list[int]) -> None:
        """A question ranked `candidates` and embedded a window of each of `embedded` (rows
        that had none): the pass embeds every window of the candidates before the rest (the
        next questions on the same subject find them ranked whole), and the count takes in
        the rows now complete."""
        if self.complete:
            return
        self.first.extend(candidates.tolist())
        if self.done is not None:
            self.done += self._complete_rows(list(dict.fromkeys(embedded)))

    def next_step(self, step: int) -> list[int]:
        """The chunks of the pass's next step, whose missing windows number about `step`:
        chunks questions touched first, then from the cursor on."""
        rows: list[int] = []
        count = 0
        while self.first and count < step:
            row = self.first.popleft()
            if missing := len(self.vectors.missing(self.windows.keys(row))):
                rows.append(row)
                count += missing
        if rows:
            return rows
        row = self.cursor
        while row < len(self.windows) and count < step:
            count += len(self.vectors.missing(self.windows.keys(row)))
            rows.append(row)
            row += 1
        return rows

    def _complete_rows(self, rows: list[int]) -> int:
        return sum(self.windows.complete_row(row) for row in rows)

    def pending(self) -> bool:
        """Whether some chunk still lacks vectors (after the last pass looked)."""
        return self.cursor < len(self.windows)

    def advance_cursor(self) -> None:
        """Move the cursor past chunks whose windows all have vectors."""
        while self.cursor < len(self.windows) and self.windows.complete_row(self.cursor):
            self.cursor += 1

    def embed_pending(
        self,
        *,
        progress: Progress | None = None,
        stop: Callable[[], bool] = lambda: False,
        step: int = STEP_WINDOWS,
        prune: bool = True,
        save_when_stopped: bool = True,
    ) -> PassReport:
        """Embed the windows of the collection that lack vectors (see
        `DenseRanking.embed_pending`)."""
        job = self.job
        total = len(self.windows)
        embedded = 0
        fingerprint = self.windows.fingerprint()
        marked = self.vectors.is_complete_for(fingerprint)
        if marked:
            self.cursor, self.complete = total, True
        done = self.embedded_chunks()
        # `minimum` counts what is done: what decides is the work left, not the total.
        saved = time.monotonic()
        with progress_for(progress, messages.DENSE_PROGRESS, total,
                          minimum=MIN_CHUNKS_FOR_BAR + done, done=done) as advance:
            try:
                while self.cursor < total and job.failed is None and not stop():
                    rows = self.next_step(step)
                    before = self._complete_rows(rows)
                    keys = self.windows.missing(np.array(rows, dtype=np.int64))
                    try:
                        embedded += job.embed_windows(keys, stop=stop)
                    except LLMError as error:
                        job.fail(error)
                        break
                    self.advance_cursor()
                    newly = self._complete_rows(rows) - before
                    if self.done is not None:  # a question may have added its own
                        self.done += newly
                    advance(newly)
                    if time.monotonic() - saved >= SAVE_INTERVAL_S:
                        job.save()
                        saved = time.monotonic()
                if self.cursor == total and not marked:
                    self.vectors.mark_complete(fingerprint)  # written by the save below
            finally:  # also on Ctrl-C in `docai index --embed`
                if save_when_stopped or not stop():
                    job.save()
        if self.cursor == total and not self.complete:
            self.complete = True
            keep = {key for row in range(total) for key in self.windows.keys(row)}
            if prune and len(self.vectors) > len(keep):  # else the store holds just these
                self.vectors.mark_complete(fingerprint)
                self.vectors.save(keep=keep)
                job.report_notices()
        return PassReport(embedded, self.cursor, total)
