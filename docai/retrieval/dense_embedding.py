"""Embedding for a dense ranking: questions and windows through one embedder, one job at a
time, and what happens when the embedder fails.

Why one place: a question and the background pass may embed from two threads; a lock makes
them take turns batch by batch (`EMBED_BATCH` windows, about a second on a busy CPU), so a
question or a request to stop waits for at most one batch, and the second of two jobs
wanting the same window finds it embedded. A failure is said once (`warn`) and switches
dense off for the session: answers carry on with the lexical ranking alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from cachetools import LRUCache

from docai import messages
from docai.llm.errors import LLMError
from docai.retrieval.dense_windows import DenseWindows
from docai.retrieval.embedding_protocol import Embedder
from docai.retrieval.window_vectors import WindowVectors

# Windows per call to the model (about a second on a busy CPU): a question, or a request to
# stop, waits for at most one call.
EMBED_BATCH = 4
QUESTION_CACHE_SIZE = 256
# What of a question is embedded. E5 reads 512 tokens (about 2,000 characters of prose) and
# a longer text is embedded window by window and averaged: 100 KB of question took a minute
# on a CPU, and Ctrl-C waited for it. Tokens are at least a character each, so this many
# characters is all the model could read at once, and at most a few of its windows.
MAX_QUERY_CHARS = 2048


class WindowEmbedding:
    """Embeds questions and the windows of `windows` with `embedder` into `vectors`.

    `warn` receives one pt-BR line when the embedder fails (and the store's notices).
    """

    def __init__(
        self,
        embedder: Embedder,
        vectors: WindowVectors,
        windows: DenseWindows,
        *,
        warn: Callable[[str], None],
        questions: LRUCache[str, np.ndarray] | None = None,
    ) -> None:
        self.embedder = embedder
        self.vectors = vectors
        self.windows = windows
        self.warn = warn
        # Question vectors, shared by rankings of the same embedder (`with_params`, a
        # store's per-question ranking): a question asked again is not embedded again.
        self.questions: LRUCache[str, np.ndarray] = (
            LRUCache(QUESTION_CACHE_SIZE) if questions is None else questions)
        self._lock = threading.Lock()  # one embedding job at a time: a question or a step
        self.failed: str | None = None

    def question_vector(self, question: str) -> np.ndarray:
        """The question's unit vector (kept for the last questions), of its first
        `MAX_QUERY_CHARS` characters."""
        vector = self.questions.get(question)
        if vector is None:
            with self._lock:
                vector = self.embedder.embed_queries([question[:MAX_QUERY_CHARS]])[0]
            self.vectors.settle_dimension(int(vector.shape[0]))
            self.questions[question] = vector
        return vector

    def embed_windows(
        self,
        wanted: list[tuple[int, str]],
        *,
        advance: Callable[[int], None] = lambda count: None,
        stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Embed the windows (row, key) in batches, until done or `stop()` (asked before
        each batch), into memory (`save` writes them). Returns how many windows were
        embedded here (another job may have embedded some)."""
        if not wanted:
            return 0
        embedded = 0
        texts = self.windows.texts_of(wanted)
        for start in range(0, len(wanted), EMBED_BATCH):
            if stop():
                break
            batch = [key for _, key in wanted[start : start + EMBED_BATCH]]
            with self._lock:
                # A question and the background pass may want the same windows: the one
                # that comes second finds them embedded.
                if todo := self.vectors.missing(batch):
                    vectors = self.embedder.embed_passages([texts[key] for key in todo])
                    self.vectors.add(todo, vectors)
                    embedded += len(todo)
            advance(len(batch))
        return embedded

    def save(self) -> None:
        """Save the vectors embedded since the last save (nothing when there are none)."""
        self.vectors.save()
        self.report_notices()

    def fail(self, error: LLMError) -> None:
        if self.failed is None:
            self.failed = str(error)
            self.warn(messages.DENSE_FALLBACK.format(reason=error))

    def report_notices(self) -> None:
        while self.vectors.notices:
            self.warn(self.vectors.notices.pop(0))
