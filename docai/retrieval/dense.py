"""Dense ranking: the lexical candidates re-ranked by an embedding model, fused with the
whole collection's ranking by meaning.

What every command uses (`open_dense`) ranks by meaning from a folder's first question, at a
bounded cost: until the whole collection is embedded, a question embeds one window (the one
sharing most of its words) of each of its best few lexical candidates that has no vector
(`dense_fresh_candidates`), and ranks by meaning every candidate with some vector, fused as
for an embedded collection. Ranked by words alone until the collection was embedded, a new
folder's first questions got docai's weakest retrieval (paraphrases 0.39 hit@3 against 0.54
embedded, on a held-out collection); embedding every window of the top 30 candidates cost
3.3x a words-only first question and 16.6x later ones. The windows a question embeds are
kept, and the candidates it touched are the background pass's first work
(`docai.retrieval.dense_pass`); answers may improve as the pass goes on, which `-v` and
`/info` say. Once it is done, a question embeds only itself.

The other mode (`bounded_until_complete` off), where a question's own lexical candidates
(the top `dense_candidates`) are embedded whole when their vectors are missing, at most
`dense_question_windows` windows, is kept for the shared store (whose clients never write
vectors) and for scoring sets (`scripts/eval.py`), whose figures it keeps comparable.

Why re-rank rather than search by vectors alone: TF-IDF and BM25 only match shared terms,
so a question that paraphrases the docs, or asks in Portuguese about English docs, ranks
the right passage low; an embedding model places both near each other.

What is embedded: each chunk as short windows (`docai.retrieval.dense_windows`), a chunk
scored by its best window. The dense order of the candidates is fused with the lexical
order by reciprocal rank fusion with a small k (`dense_rrf_k`), so a chunk both orders put
near the top wins, and a set where the embeddings are weaker keeps its lexical order nearly
intact. Once every chunk has its vectors (`docai.retrieval.dense_pass`), the dense ranking
over the whole collection joins the fusion (`dense_full_weight`).
"""

from __future__ import annotations

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
from docai.retrieval.dense_embedding import (
    EMBED_BATCH,
    MAX_QUERY_CHARS,
    QUESTION_CACHE_SIZE,
    WindowEmbedding,
)
from docai.retrieval.dense_pass import STEP_WINDOWS, CollectionPass, PassReport
from docai.retrieval.dense_windows import DenseWindows
from docai.retrieval.embedders import BundledE5, Embedder, embedder_for
from docai.retrieval.fusion import fuse_by_meaning, meaning_weights, top
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.window_vectors import WindowVectors
from docai.settings import Settings

__all__ = ["EMBED_BATCH", "MAX_QUERY_CHARS", "QUESTION_CACHE_SIZE", "DenseRanking",
           "PassReport", "QuestionCost", "Reranked", "open_dense", "open_dense_ranking"]

# A question whose candidates lack this many windows shows a bar while they are embedded.
MIN_WINDOWS_FOR_BAR = 8


@dataclass(frozen=True, slots=True)
class QuestionCost:
    """What the last question's re-ranking took: windows it embedded, candidates ranked
    by meaning, and whether the collection was still being embedded (`partial`: its
    answer may change as the pass goes on)."""

    embedded: int
    scored: int
    partial: bool

    def note(self) -> str:
        """The line `-v` shows after the question (pt-BR)."""
        if not self.partial:
            return messages.DENSE_QUESTION_COST_COMPLETE.format(
                embedded=self.embedded, scored=self.scored)
        return messages.DENSE_QUESTION_COST_PARTIAL.format(
            embedded=self.embedded, scored=self.scored)


@dataclass(frozen=True, slots=True)
class Reranked:
    """A ranking of chunk ids, best first, with its fused scores; `similarity` is the best
    window cosine of the question among the candidates (None when dense did not run)."""

    ranked: np.ndarray
    scores: np.ndarray
    similarity: float | None


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
        windows: DenseWindows | None = None,
        bounded_until_complete: bool = False,
    ) -> None:
        self.bounded_until_complete = bounded_until_complete
        # The last question's cost, for `-v` (None: it was not ranked by meaning).
        self.last_question: QuestionCost | None = None
        self.chunks = ChunkTable.of(chunks)
        self.embedder = embedder
        self.vectors = vectors
        self.params = params
        self._progress = progress
        self._tiebreak = self.chunks.tiebreak()
        self.windows = windows or DenseWindows(self.chunks, vectors, params.window_chars,
                                               params.window_overlap)
        self.job = WindowEmbedding(embedder, vectors, self.windows, warn=warn,
                                   questions=questions)
        self.collection = CollectionPass(self.windows, self.job)

    @property
    def warn(self) -> Callable[[str], None]:
        return self.job.warn

    @warn.setter
    def warn(self, warn: Callable[[str], None]) -> None:
        # the REPL replaces it: a background pass warns from its thread
        self.job.warn = warn

    def with_params(self, params: RetrievalParams) -> DenseRanking:
        """The same embedder, vectors and question cache ranking with other `params` (and,
        when the windows are the same, what the background pass found)."""
        same_windows = (params.window_chars, params.window_overlap) == (
            self.params.window_chars, self.params.window_overlap)
        other = DenseRanking(self.chunks, self.embedder, self.vectors, params=params,
                             warn=self.warn, progress=self._progress,
                             questions=self.job.questions,
                             windows=self.windows if same_windows else None,
                             bounded_until_complete=self.bounded_until_complete)
        if same_windows:
            other.collection.carry_on_from(self.collection)
        return other

    @property
    def active(self) -> bool:
        """False once the embedder has failed (dense is off for the rest of the session)."""
        return self.job.failed is None

    def rerank(
        self, question: str, ranked: np.ndarray, scores: np.ndarray, *, crossing: bool = False
    ) -> Reranked:
        """`ranked` (the lexical ranking, best first) with its top candidates re-ranked by
        their best window's cosine with the question, fused with the lexical order.

        Embeds the candidates' missing windows and the question first, keeping them in
        memory: `save` writes them, which the commands do after their output, so an answer
        never waits for the store to be rewritten (a second or two at 100k chunks). Until
        the collection is embedded, a bounded ranking (`bounded_until_complete`) embeds one
        window of each of the top `dense_fresh_candidates` candidates that has none, and
        ranks by meaning the candidates with some vector; otherwise up to
        `dense_question_windows` windows, every window of the best candidates. On an
        embedder error, warns once and returns the lexical ranking unchanged. `crossing`:
        the question is in another language than its passages, and the orders are weighed
        by `crossing_weights`.
        """
        params = self.params
        candidates = ranked[: params.dense_candidates]
        self.last_question = None
        if not self.active or len(candidates) == 0:
            return Reranked(ranked, scores, None)
        partial = self.bounded_until_complete and not self.known_complete()
        try:
            # The question first: its size is the embedder's, which the stored vectors must
            # share (`settle_dimension`) before anything is counted as missing.
            query = self.question_vector(question)
            if partial:
                candidates, similarities, embedded = self._partial(question, candidates, query)
            else:
                candidates, similarities, embedded = self._whole(candidates, query)
        except LLMError as error:
            self.job.fail(error)
            return Reranked(ranked, scores, None)
        finally:
            self.job.report_notices()  # damage found reading, said with this question
        if not self.active or len(candidates) == 0:  # no dense signal to fuse
            return Reranked(ranked, scores, None)
        self.last_question = QuestionCost(embedded, len(candidates), partial)
        weights = meaning_weights(params, crossing=crossing)
        full = self.full_ranking(query) if weights[2] > 0 else None
        fused, fused_scores = fuse_by_meaning(ranked, candidates, similarities, self._tiebreak,
                                              params, weights, full)
        return Reranked(fused, fused_scores, float(similarities.max()))

    def _whole(
        self, candidates: np.ndarray, query: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Every window of the best candidates embedded, within `dense_question_windows`:
        the candidates then scored, their similarities, the windows embedded."""
        embedded = 0
        # Twice at most: rows found damaged (or a store cut short) when read the first
        # time are embedded again before ranking, never ranked as zeros.
        for _attempt in range(2):
            missing, kept = self.windows.within_budget(
                candidates, self.params.dense_question_windows)
            with progress_for(self._progress, messages.DENSE_QUESTION_PROGRESS,
                              len(missing), minimum=MIN_WINDOWS_FOR_BAR) as advance:
                embedded += self.job.embed_windows(missing, advance=advance)
            similarities = self._chunk_similarities(kept, query)
            if not self.windows.missing(kept):
                break
        return kept, similarities, embedded

    def _partial(
        self, question: str, candidates: np.ndarray, query: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """The collection not yet embedded: one window (the one sharing most of the
        question's words) of each of the top `dense_fresh_candidates` candidates without
        any vector embedded, then every candidate with some vector scored by its best
        embedded window (a window without a vector reads as zeros, which no cosine of a
        real window falls to). The candidates become the background pass's first work."""
        fresh = self.windows.best_missing(
            candidates[: self.params.dense_fresh_candidates], question)
        embedded = self.job.embed_windows(fresh)
        self.collection.touched(candidates, [row for row, _ in fresh])
        scored = self.windows.with_vectors(candidates)
        return scored, self._chunk_similarities(scored, query), embedded

    def question_vector(self, question: str) -> np.ndarray:
        """The question's unit vector (kept for the last questions), of its first
        `MAX_QUERY_CHARS` characters."""
        return self.job.question_vector(question)

    def full_ranking(self, query: np.ndarray) -> np.ndarray | None:
        """The `rank_depth` chunks of the whole collection closest to `query` (best window
        first), or None until every chunk has its vectors."""
        if not self.known_complete() or len(self.chunks) == 0:
            return None
        scan = self.collection.collection_scan()
        if scan is None or scan.dimension != query.shape[0]:
            return None
        candidates, scores = scan.chunk_scores(query)
        return top(candidates, scores, self._tiebreak, self.params.rank_depth)

    def known_complete(self) -> bool:
        """Whether every chunk is known to have its vectors (`CollectionPass`)."""
        return self.collection.known_complete()

    def embedded_chunks(self) -> int:
        """How many chunks have every window's vector (for a report)."""
        return self.collection.embedded_chunks()

    def windows_to_embed(self, limit: int) -> int | None:
        """How many windows of the collection lack a vector, or None when over `limit`."""
        return self.collection.windows_to_embed(limit)

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
        return self.collection.embed_pending(progress=progress, stop=stop, step=step,
                                             prune=prune, save_when_stopped=save_when_stopped)

    def pending(self) -> bool:
        """Whether some chunk still lacks vectors (after the last pass looked)."""
        return self.collection.pending()

    def save(self) -> None:
        """Save the vectors embedded since the last save (nothing when there are none)."""
        self.job.save()

    def _chunk_similarities(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Each chunk's best window cosine with `query`."""
        keys = [self.windows.keys(row) for row in rows.tolist()]
        matrix = self.vectors.get([key for chunk in keys for key in chunk])
        if matrix.shape[1] != query.shape[0]:
            self.job.fail(LLMError(messages.DENSE_QUESTION_DIMENSION.format(
                model=self.embedder.name, got=query.shape[0], expected=matrix.shape[1])))
            return np.zeros(len(rows), dtype=np.float32)
        starts = np.cumsum([0] + [len(chunk) for chunk in keys[:-1]])
        return np.maximum.reduceat(matrix @ query, starts)


def open_dense_ranking(
    chunks: Sequence[Chunk],
    embedder: Embedder,
    cache_dir: Path,
    *,
    params: RetrievalParams = DEFAULT_PARAMS,
    rebuild: bool = False,
    warn: Callable[[str], None] = lambda line: None,
    progress: Progress | None = None,
    bounded_until_complete: bool = False,
) -> DenseRanking:
    """The dense ranking of `chunks` with `embedder`, its vectors kept in `cache_dir` (the
    index's folder, `Settings.resolved_cache_dir()`). Reads the store; embeds nothing and
    loads no model yet, so it costs nothing at start-up."""
    path = vector_store.store_path(cache_dir, embedder.name)
    vectors = WindowVectors(path, embedder.name, rebuild=rebuild)
    ranking = DenseRanking(chunks, embedder, vectors, params=params, warn=warn,
                           progress=progress, bounded_until_complete=bounded_until_complete)
    ranking.job.report_notices()
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

    Until every chunk has its vectors (`docai index`, the REPL's background pass) a
    question embeds at most `dense_fresh_candidates` windows (`DenseRanking.rerank`).
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
        progress=progress, bounded_until_complete=True,
    )
