"""Dense ranking: the lexical candidates re-ranked by an embedding model, never waiting
for the whole collection.

Why re-rank rather than search by vectors alone: TF-IDF and BM25 only match shared terms,
so a question that paraphrases the docs, or asks in Portuguese about English docs, ranks
the right passage low; an embedding model places both near each other. But embedding a
large collection on a CPU takes hours, so answers cannot wait for it. A question's own
lexical candidates (the top `dense_candidates`) are embedded when their vectors are
missing, before ranking, at most `dense_question_windows` of them (best candidates first):
the first answer after start-up waits a few seconds at most, however deep the re-ranking.

What is embedded: each chunk as short windows (`docai.retrieval.windows`), a chunk scored
by its best window. The dense order of the candidates is fused with the lexical order by
reciprocal rank fusion with a small k (`dense_rrf_k`), so a chunk both orders put near the
top wins, and a set where the embeddings are weaker keeps its lexical order nearly intact.

The rest of the collection is embedded in small resumable steps (`embed_pending`: the
REPL runs it in a background thread while it waits for the user, `docai index --embed` to
the end); it saves at least every `SAVE_INTERVAL_S` and when it stops, and `stop` is heard
between batches of a few windows, so a question, Ctrl-C or exit waits for at most one batch.
Once every chunk has its vectors, the dense ranking over the whole collection joins the
fusion (`dense_full_weight`), and the store remembers the collection as complete (by a
fingerprint of its chunk texts): the next process ranks the whole collection from its first
question, and the next session's pass does not walk its windows again (at 100k chunks that
walk cut and hashed about 400k windows, seconds of CPU at every start).
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cachetools import LRUCache

from docai import messages
from docai.index import vector_store
from docai.index.chunk_table import ChunkTable
from docai.llm.errors import LLMError
from docai.records import Chunk, Progress, progress_for
from docai.retrieval.collection_scan import CollectionScan
from docai.retrieval.embedders import BundledE5, Embedder, embedder_for
from docai.retrieval.fusion import reciprocal_rank_fusion, top
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.window_vectors import WindowVectors
from docai.retrieval.windows import windows
from docai.settings import Settings
from docai.versioning import code_version

# Windows looked up and embedded per background step.
STEP_WINDOWS = 32
# How often the background pass saves. A save rewrites the whole store (about 200 MB and
# 1 s for 100k chunks), so saving every step would write terabytes over a large pass; a kill
# -9 loses at most this much embedding, and a stop (a question, Ctrl-C, exit) saves at once.
SAVE_INTERVAL_S = 60.0
# Windows per call to the model (about a second on a busy CPU): a question, or a request to
# stop, waits for at most one call.
EMBED_BATCH = 4
QUESTION_CACHE_SIZE = 256
# What of a question is embedded. E5 reads 512 tokens (about 2,000 characters of prose) and
# a longer text is embedded window by window and averaged: 100 KB of question took a minute
# on a CPU, and Ctrl-C waited for it. Tokens are at least a character each, so this many
# characters is all the model could read at once, and at most a few of its windows.
MAX_QUERY_CHARS = 2048
# Windows' vectors read at once when stacking them for the whole-collection ranking.
STACK_BLOCK = 16_384
# Below this many chunks left to embed, a progress bar would only flicker.
MIN_CHUNKS_FOR_BAR = 16
# A question whose candidates lack this many windows shows a bar while they are embedded.
MIN_WINDOWS_FOR_BAR = 8


@dataclass(frozen=True, slots=True)
class Reranked:
    """A ranking of chunk ids, best first, with its fused scores; `similarity` is the best
    window cosine of the question among the candidates (None when dense did not run)."""

    ranked: np.ndarray
    scores: np.ndarray
    similarity: float | None


@dataclass(frozen=True, slots=True)
class PassReport:
    """What `embed_pending` did: windows embedded, chunks whose windows all have vectors."""

    embedded: int
    chunks_done: int
    chunks: int

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks


class DenseRanking:
    """Dense re-ranking for the chunks of one index (`SearchIndex.chunks`, same rows).

    `warn` receives one pt-BR line when the embedder fails: dense is then switched off for
    the session and answers carry on with the lexical ranking alone. `progress` shows the
    wait of a question whose candidates must be embedded first.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        embedder: Embedder,
        vectors: WindowVectors,
        *,
        params: RetrievalParams = DEFAULT_PARAMS,
        warn: Callable[[str], None] = lambda line: None,
        progress: Progress | None = None,
        questions: LRUCache[str, np.ndarray] | None = None,
    ) -> None:
        self.chunks = ChunkTable.of(chunks)
        self.embedder = embedder
        self.vectors = vectors
        self.params = params
        self.warn = warn  # the REPL replaces it: a background pass warns from its thread
        self._progress = progress
        self._tiebreak = self.chunks.tiebreak()
        # Question vectors, shared by rankings of the same embedder (`with_params`, a
        # store's per-question ranking): a question asked again is not embedded again.
        self._questions: LRUCache[str, np.ndarray] = (
            LRUCache(QUESTION_CACHE_SIZE) if questions is None else questions)
        self._windows: dict[int, tuple[str, ...]] = {}
        self._lock = threading.Lock()  # one embedding job at a time: a question or a step
        self._failed: str | None = None
        self._cursor = 0  # chunks before it have every window's vector
        self._complete = False  # a pass (or the store's mark) found every chunk's vectors
        self._mark_read = False  # the store's completeness mark was looked for
        self._scan: CollectionScan | None = None
        self._fingerprint_value: bytes | None = None

    def with_params(self, params: RetrievalParams) -> DenseRanking:
        """The same embedder, vectors and question cache ranking with other `params` (and,
        when the windows are the same, what the background pass found)."""
        other = DenseRanking(self.chunks, self.embedder, self.vectors, params=params,
                             warn=self.warn, progress=self._progress,
                             questions=self._questions)
        if (params.window_chars, params.window_overlap) == (
            self.params.window_chars, self.params.window_overlap
        ):
            other._windows, other._cursor = self._windows, self._cursor
            other._complete, other._scan = self._complete, self._scan
            other._mark_read = self._mark_read
        return other

    @property
    def active(self) -> bool:
        """False once the embedder has failed (dense is off for the rest of the session)."""
        return self._failed is None

    # --- ranking ----------------------------------------------------------------------------
    def rerank(self, question: str, ranked: np.ndarray, scores: np.ndarray) -> Reranked:
        """`ranked` (the lexical ranking, best first) with its top candidates re-ranked by
        their best window's cosine with the question, fused with the lexical order.

        Embeds the candidates' missing windows and the question first (a few seconds for a
        cold question on a CPU, nothing for a warm one), keeping them in memory: `save`
        writes them, which the commands do after their output, so an answer never waits for
        the store to be rewritten (a second or two at 100k chunks). On an embedder error,
        warns once and returns the lexical ranking unchanged.
        """
        params = self.params
        candidates = ranked[: params.dense_candidates]
        if self._failed is not None or len(candidates) == 0:
            return Reranked(ranked, scores, None)
        try:
            # The question first: its size is the embedder's, which the stored vectors must
            # share (`settle_dimension`) before anything is counted as missing.
            query = self.question_vector(question)
            # Twice at most: rows found damaged (or a store cut short) when read the first
            # time are embedded again before ranking, never ranked as zeros.
            for _attempt in range(2):
                missing, candidates = self._within_budget(
                    candidates, params.dense_question_windows)
                with progress_for(self._progress, messages.DENSE_QUESTION_PROGRESS,
                                  len(missing), minimum=MIN_WINDOWS_FOR_BAR) as advance:
                    self._embed_windows(missing, advance=advance)
                similarities = self._chunk_similarities(candidates, query)
                if not self._missing(candidates):
                    break
        except LLMError as error:
            self._fail(error)
            return Reranked(ranked, scores, None)
        finally:
            self._report_notices()  # damage found reading, said with this question
        if self._failed is not None:  # vectors of another size: no dense signal to fuse
            return Reranked(ranked, scores, None)
        dense_order = candidates[np.lexsort((self._tiebreak[candidates], -similarities))]
        rankings = [ranked[: params.rank_depth], dense_order]
        weights = list(params.rerank_weights)
        if params.dense_full_weight > 0 and (full := self.full_ranking(query)) is not None:
            rankings.append(full)
            weights.append(params.dense_full_weight)
        fused, fused_scores = reciprocal_rank_fusion(
            rankings, self._tiebreak, k=params.dense_rrf_k, weights=weights
        )
        return Reranked(fused, fused_scores, float(similarities.max()))

    def question_vector(self, question: str) -> np.ndarray:
        """The question's unit vector (kept for the last questions), of its first
        `MAX_QUERY_CHARS` characters."""
        vector = self._questions.get(question)
        if vector is None:
            with self._lock:
                vector = self.embedder.embed_queries([question[:MAX_QUERY_CHARS]])[0]
            self.vectors.settle_dimension(int(vector.shape[0]))
            self._questions[question] = vector
        return vector

    def full_ranking(self, query: np.ndarray) -> np.ndarray | None:
        """The `rank_depth` chunks of the whole collection closest to `query` (best window
        first), or None until every chunk has its vectors."""
        if not self.known_complete() or len(self.chunks) == 0:
            return None
        if self._scan is None:  # built on first use: most sessions never rank this way
            self._scan = self._collection_scan()
            if self._scan is None:  # damage found on reading: walk the pass again
                self._cursor, self._complete = 0, False
                return None
        if self._scan.dimension != query.shape[0]:
            return None
        candidates, scores = self._scan.chunk_scores(query)
        return top(candidates, scores, self._tiebreak, self.params.rank_depth)

    def _collection_scan(self) -> CollectionScan | None:
        """Every window's vector, stacked in the chunks' order a block at a time (read whole,
        a large collection would be held twice), or None if any is missing."""
        keys = [self._keys(row) for row in range(len(self.chunks))]
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
        if not self._complete and not self._mark_read:
            self._mark_read = True
            if self.vectors.is_complete_for(self._fingerprint()):
                self._cursor, self._complete = len(self.chunks), True
        return self._complete

    def embedded_chunks(self) -> int:
        """How many chunks have every window's vector (walks the collection unless it is
        known complete: for a report, not for every question)."""
        if self.known_complete():
            return len(self.chunks)
        self._advance_cursor()  # every chunk before the pass's cursor has its vectors
        return self._cursor + sum(
            1 for row in range(self._cursor, len(self.chunks))
            if not self.vectors.missing(self._keys(row)))

    def windows_to_embed(self, limit: int) -> int | None:
        """How many windows of the collection lack a vector, or None when over `limit`
        (the walk stops there, and a collection of more than `limit` chunks is not walked)."""
        if self.known_complete():
            return 0
        if len(self.chunks) > limit:
            return None
        keys: set[str] = set()
        for row in range(len(self.chunks)):
            keys.update(self.vectors.missing(self._keys(row)))
            if len(keys) > limit:
                return None
        return len(keys)

    # --- the background pass ----------------------------------------------------------------
    def embed_pending(
        self,
        *,
        progress: Progress | None = None,
        stop: Callable[[], bool] = lambda: False,
        step: int = STEP_WINDOWS,
        prune: bool = True,
        save_when_stopped: bool = True,
    ) -> PassReport:
        """Embed the windows of the collection that lack vectors, `step` windows at a time,
        until done or `stop()` says so (asked between batches), saving every
        `SAVE_INTERVAL_S` and at the end (when `stop()` ended it, only with
        `save_when_stopped`: the REPL pauses for every question, and a save of a large store
        holds it for a second).

        Safe to run in a thread while questions are asked. At the end, every chunk has its
        vectors: the whole-collection ranking becomes available and, with `prune`, vectors
        of windows that no longer exist are dropped from the store. When the embedder fails,
        what was embedded is saved, `warn` gets one line, dense is off for the session and
        the report says the pass is not complete (no exception: a background thread has
        no one to raise to).
        """
        total = len(self.chunks)
        embedded = 0
        fingerprint = self._fingerprint()
        marked = self.vectors.is_complete_for(fingerprint)
        if marked:
            self._cursor, self._complete = total, True
        self._advance_cursor()
        # `minimum` counts from the cursor: what decides is the work left, not the total.
        saved = time.monotonic()
        with progress_for(progress, messages.DENSE_PROGRESS, total,
                          minimum=MIN_CHUNKS_FOR_BAR + self._cursor, done=self._cursor) as advance:
            try:
                while self._cursor < total and self._failed is None and not stop():
                    before = self._cursor
                    rows, keys = self._next_missing(self._cursor, step)
                    try:
                        embedded += self._embed_windows(keys, stop=stop)
                    except LLMError as error:
                        self._fail(error)
                        break
                    self._advance_cursor(rows)
                    advance(self._cursor - before)
                    if time.monotonic() - saved >= SAVE_INTERVAL_S:
                        self.save()
                        saved = time.monotonic()
                if self._cursor == total and not marked:
                    self.vectors.mark_complete(fingerprint)  # written by the save below
            finally:  # also on Ctrl-C in `docai index --embed`
                if save_when_stopped or not stop():
                    self.save()
        if self._cursor == total and not self._complete:
            self._complete = True
            keep = {key for row in range(total) for key in self._keys(row)}
            if prune and len(self.vectors) > len(keep):  # else the store holds just these
                self.vectors.mark_complete(fingerprint)
                self.vectors.save(keep=keep)
                self._report_notices()
        return PassReport(embedded, self._cursor, total)

    def pending(self) -> bool:
        """Whether some chunk still lacks vectors (after the last pass looked)."""
        return self._cursor < len(self.chunks)

    # --- internals --------------------------------------------------------------------------
    def _fingerprint(self) -> bytes:
        """What the store's completeness mark names: the chunk texts, the window sizes and
        the code that cuts windows (the vectors needed follow from these alone). One hash
        over the table's text buffer: a fraction of a second at 100k chunks, outside the GIL."""
        if self._fingerprint_value is not None:
            return self._fingerprint_value
        texts = self.chunks.texts
        cutting = code_version("1", modules=[sys.modules["docai.retrieval.windows"]])
        digest = hashlib.sha256(f"windows {cutting} {self.params.window_chars} "
                                f"{self.params.window_overlap}\n".encode())
        digest.update(texts.offsets.astype("<i8", copy=False).tobytes())
        digest.update(np.ascontiguousarray(texts.data).data)
        self._fingerprint_value = digest.digest()
        return self._fingerprint_value

    def _keys(self, row: int) -> tuple[str, ...]:
        keys = self._windows.get(row)
        if keys is None:
            keys = tuple(vector_store.checksum(text) for text in self._texts(row))
            self._windows[row] = keys
        return keys

    def _texts(self, row: int) -> tuple[str, ...]:
        params = self.params
        return windows(self.chunks.texts[row], params.window_chars, params.window_overlap)

    def _within_budget(
        self, rows: np.ndarray, budget: int
    ) -> tuple[list[tuple[int, str]], np.ndarray]:
        """The missing windows (row, key) of `rows` (best first) to embed for a question,
        at most `budget` of them (a row whose windows do not fit is passed over, unless
        it is the first), and the rows that will then have every vector."""
        wanted: dict[str, int] = {}
        kept: list[int] = []
        for row in rows.tolist():
            new = [key for key in self.vectors.missing(self._keys(row)) if key not in wanted]
            if new and kept and len(wanted) + len(new) > budget:
                continue
            wanted.update((key, row) for key in new)
            kept.append(row)
        return [(row, key) for key, row in wanted.items()], np.array(kept, dtype=np.int64)

    def _missing(self, rows: np.ndarray) -> list[tuple[int, str]]:
        """(row, key) of each window of `rows` without a vector, each key once."""
        found: dict[str, int] = {}
        for row in rows.tolist():
            for key in self.vectors.missing(self._keys(row)):
                found.setdefault(key, row)
        return [(row, key) for key, row in found.items()]

    def _next_missing(self, start: int, limit: int) -> tuple[int, list[tuple[int, str]]]:
        """From chunk `start` on, the missing windows of the next chunks, about `limit`
        (whole chunks), and the row after the last chunk looked at."""
        rows: list[int] = []
        count = 0
        row = start
        while row < len(self.chunks) and count < limit:
            count += len(self.vectors.missing(self._keys(row)))
            rows.append(row)
            row += 1
        return row, self._missing(np.array(rows, dtype=np.int64))

    def _advance_cursor(self, limit: int | None = None) -> None:
        """Move the cursor past chunks whose windows all have vectors."""
        end = len(self.chunks) if limit is None else limit
        while self._cursor < end and not self.vectors.missing(self._keys(self._cursor)):
            self._cursor += 1

    def _embed_windows(
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
        texts: dict[str, str] = {}
        for row in dict.fromkeys(row for row, _ in wanted):
            texts.update(zip(self._keys(row), self._texts(row), strict=True))
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
        self._report_notices()

    def _chunk_similarities(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Each chunk's best window cosine with `query`."""
        keys = [self._keys(row) for row in rows.tolist()]
        matrix = self.vectors.get([key for chunk in keys for key in chunk])
        if matrix.shape[1] != query.shape[0]:
            self._fail(LLMError(messages.DENSE_QUESTION_DIMENSION.format(
                model=self.embedder.name, got=query.shape[0], expected=matrix.shape[1])))
            return np.zeros(len(rows), dtype=np.float32)
        starts = np.cumsum([0] + [len(chunk) for chunk in keys[:-1]])
        return np.maximum.reduceat(matrix @ query, starts)

    def _fail(self, error: LLMError) -> None:
        if self._failed is None:
            self._failed = str(error)
            self.warn(messages.DENSE_FALLBACK.format(reason=error))

    def _report_notices(self) -> None:
        while self.vectors.notices:
            self.warn(self.vectors.notices.pop(0))


def open_dense_ranking(
    chunks: Sequence[Chunk],
    embedder: Embedder,
    cache_dir: Path,
    *,
    params: RetrievalParams = DEFAULT_PARAMS,
    rebuild: bool = False,
    warn: Callable[[str], None] = lambda line: None,
    progress: Progress | None = None,
) -> DenseRanking:
    """The dense ranking of `chunks` with `embedder`, its vectors kept in `cache_dir` (the
    index's folder, `Settings.resolved_cache_dir()`). Reads the store; embeds nothing and
    loads no model yet, so it costs nothing at start-up."""
    path = vector_store.store_path(cache_dir, embedder.name)
    vectors = WindowVectors(path, embedder.name, rebuild=rebuild)
    ranking = DenseRanking(chunks, embedder, vectors, params=params, warn=warn,
                           progress=progress)
    ranking._report_notices()
    return ranking


def open_dense(
    settings: Settings,
    chunks: Sequence[Chunk],
    *,
    warn: Callable[[str], None],
    progress: Progress | None = None,
    params: RetrievalParams = DEFAULT_PARAMS,
) -> DenseRanking | None:
    """The dense ranking `settings` ask for (None with `--dense off` or no chunks).

    Nothing is embedded here: candidates are embedded question by question (`rerank`).
    When `--embed-model auto` finds no embedding model in Ollama (or no Ollama), `warn`
    says so and the bundled model stands in.
    """
    if not settings.dense or not chunks:
        return None
    try:
        embedder = embedder_for(settings)
    except LLMError as error:
        warn(messages.DENSE_AUTO_FALLBACK.format(reason=error))
        embedder = BundledE5()
    # `--rebuild` keeps the vectors: keyed by their text, they are never stale, and they
    # can take hours to compute again.
    return open_dense_ranking(
        chunks, embedder, settings.resolved_cache_dir(), params=params, warn=warn,
        progress=progress,
    )
