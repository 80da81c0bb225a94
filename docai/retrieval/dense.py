"""Dense ranking: the lexical candidates re-ranked by an embedding model, fused with the
whole collection's ranking by meaning.

What every command uses (`open_dense`) ranks by meaning only once the whole collection is
embedded, and by words alone until then: a question never waits on the embedder, and its
passages do not change under the user as a pass goes on (the first questions of a new
folder, asked at 2 % and at 100 % embedded, got different sources; the commands now say
that results improve when embedding ends, and when that will be). Embedding happens at
`docai index` and in the REPL's background pass (`docai.retrieval.dense_pass`); once it is
done, a question embeds only itself.

The other mode (`words_until_complete` off), where a question's own lexical candidates
(the top `dense_candidates`) are embedded when their vectors are missing, at most
`dense_question_windows` of them, is kept for the shared store (whose clients never write
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
from docai.retrieval.fusion import reciprocal_rank_fusion, top
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.window_vectors import WindowVectors
from docai.settings import Settings

__all__ = ["EMBED_BATCH", "MAX_QUERY_CHARS", "QUESTION_CACHE_SIZE", "DenseRanking",
           "PassReport", "Reranked", "open_dense", "open_dense_ranking"]

# A question whose candidates lack this many windows shows a bar while they are embedded.
MIN_WINDOWS_FOR_BAR = 8


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
        words_until_complete: bool = False,
    ) -> None:
        self.words_until_complete = words_until_complete
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
                             words_until_complete=self.words_until_complete)
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

        Embeds the candidates' missing windows and the question first (a few seconds for a
        cold question on a CPU, nothing for a warm one), keeping them in memory: `save`
        writes them, which the commands do after their output, so an answer never waits for
        the store to be rewritten (a second or two at 100k chunks). On an embedder error,
        warns once and returns the lexical ranking unchanged. `crossing`: the question is in
        another language than its passages, and the orders are weighed by
        `crossing_weights`.
        """
        params = self.params
        candidates = ranked[: params.dense_candidates]
        if not self.active or len(candidates) == 0 or not self.ready():
            return Reranked(ranked, scores, None)
        try:
            # The question first: its size is the embedder's, which the stored vectors must
            # share (`settle_dimension`) before anything is counted as missing.
            query = self.question_vector(question)
            # Twice at most: rows found damaged (or a store cut short) when read the first
            # time are embedded again before ranking, never ranked as zeros.
            for _attempt in range(2):
                missing, candidates = self.windows.within_budget(
                    candidates, params.dense_question_windows)
                with progress_for(self._progress, messages.DENSE_QUESTION_PROGRESS,
                                  len(missing), minimum=MIN_WINDOWS_FOR_BAR) as advance:
                    self.job.embed_windows(missing, advance=advance)
                similarities = self._chunk_similarities(candidates, query)
                if not self.windows.missing(candidates):
                    break
        except LLMError as error:
            self.job.fail(error)
            return Reranked(ranked, scores, None)
        finally:
            self.job.report_notices()  # damage found reading, said with this question
        if not self.active:  # vectors of another size: no dense signal to fuse
            return Reranked(ranked, scores, None)
        dense_order = candidates[np.lexsort((self._tiebreak[candidates], -similarities))]
        rankings = [ranked[: params.rank_depth], dense_order]
        weights = [*params.rerank_weights, params.dense_full_weight]
        if crossing and params.crossing_weights is not None:
            weights = list(params.crossing_weights)
        if weights[2] > 0 and (full := self.full_ranking(query)) is not None:
            rankings.append(full)
        weights = weights[: len(rankings)]
        fused, fused_scores = reciprocal_rank_fusion(
            rankings, self._tiebreak, k=params.dense_rrf_k, weights=weights
        )
        return Reranked(fused, fused_scores, float(similarities.max()))

    def ready(self) -> bool:
        """Whether a question is ranked by meaning now: always, unless
        `words_until_complete` (every command's ranking, `open_dense`), where only once
        every chunk has its vectors. Until then a question gets exactly the ranking of
        `--dense off`, and embeds nothing: its answer neither waits on the embedder nor
        changes as the pass goes on, and changes once, when the pass ends (the commands
        say so, and when)."""
        return not self.words_until_complete or self.known_complete()

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
    words_until_complete: bool = False,
) -> DenseRanking:
    """The dense ranking of `chunks` with `embedder`, its vectors kept in `cache_dir` (the
    index's folder, `Settings.resolved_cache_dir()`). Reads the store; embeds nothing and
    loads no model yet, so it costs nothing at start-up."""
    path = vector_store.store_path(cache_dir, embedder.name)
    vectors = WindowVectors(path, embedder.name, rebuild=rebuild)
    ranking = DenseRanking(chunks, embedder, vectors, params=params, warn=warn,
                           progress=progress, words_until_complete=words_until_complete)
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

    Nothing is embedded here, nor by a question: until every chunk has its vectors (`docai
    index`, the REPL's background pass) questions are ranked by words alone, exactly as
    with `--dense off` (`DenseRanking.ready`). When `--embed-model auto` finds no embedding
    model in Ollama (or no Ollama), `warn` says so and the bundled model stands in.
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
        progress=progress, words_until_complete=True,
    )
