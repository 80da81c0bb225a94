"""Dense ranking over the shared store: window vectors read from pgvector, never written
by a client (`docai.store.embedding_pass` embeds every window once, for the whole team).

Once every window of the collection has its vector, a question reads, in one statement
between its packs and its chunks, the chunks nearest it in the whole collection (found by
the database) and the window vectors of those and of its top lexical candidates; the final
ranking is fused from them here (`docai.store.dense_fusion`), as the local index fuses a
complete collection's, and only its top chunks are read. A bridged question's rankings are
fused by the verdict first: it is re-ranked by `docai.retrieval.dense.DenseRanking` itself,
over candidates read with the nearest chunks. Before the collection is complete, the
candidates alone are re-ranked, their vectors fetched by key, and a window the store has no
vector for yet is embedded in this client's memory for the session, never stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import psycopg
from cachetools import LRUCache

from docai import messages
from docai.index.vector_store import checksum
from docai.llm.errors import LLMError
from docai.retrieval.dense import MAX_QUERY_CHARS, QUESTION_CACHE_SIZE, DenseRanking, Reranked
from docai.retrieval.embedders import BundledE5, Embedder, embedder_for
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.window_vectors import DimensionChanged
from docai.retrieval.windows import windows
from docai.settings import Settings
from docai.store import queries, vector_queries
from docai.store.dense_fusion import DenseRead, Fused, fuse
from docai.store.search import StoreCandidates, StoreIndex
from docai.store.store_chunks import StoreChunks

# Chunks beyond `rank_depth` the database's nearest-chunk scan returns, so that its float
# rounding at the cut cannot drop a chunk the exact order here would keep.
NEAREST_MARGIN = 20
# While the collection is not ranked whole, how often a client asks again.
RECHECK_S = 60.0
# Without an HNSW index, the whole-collection ranking only up to this many windows: the
# database's exact scan of 258,973 windows took 140-185 ms a question (a store's hybrid
# question is about 40 ms); this many take about a quarter of that.
EXACT_SCAN_WINDOWS = 65_536


class FetchedVectors:
    """The few window vectors one question needs, as `WindowVectors` serves them."""

    def __init__(self, found: dict[str, np.ndarray], session: dict[str, np.ndarray],
                 name: str, *, whole: bool = False) -> None:
        self._found = found
        self._whole = whole
        self._session = session  # embedded by this client: kept for the session only
        self.name = name
        self.notices: list[str] = []

    def settle_dimension(self, dimension: int) -> None:
        """The question's vector must have the stored vectors' size: another size means the
        model behind the name is not the one the collection was embedded with."""
        stored = next(iter(self._found.values()), None)
        if stored is not None and stored.shape[0] != dimension:
            raise DimensionChanged(messages.DENSE_DIMENSION_UNSTABLE.format(
                model=self.name, new=dimension, old=stored.shape[0]))

    def missing(self, keys: Iterable[str]) -> list[str]:
        return [k for k in dict.fromkeys(keys) if k not in self._found and k not in self._session]

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        rounded = np.asarray(vectors, dtype=np.float16).astype(np.float32)  # as stored
        self._session.update(zip(keys, rounded, strict=True))

    def get(self, keys: Sequence[str]) -> np.ndarray:
        rows = [self._found[k] if k in self._found else self._session[k] for k in keys]
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, 0), np.float32)

    def is_complete_for(self, fingerprint: bytes) -> bool:
        """True when these are the vectors of every chunk ranked (`whole`: the candidates
        widened with the collection's nearest chunks), so the whole-collection ranking runs
        over them; never for the candidates alone."""
        return self._whole

    @property
    def dimension(self) -> int:
        stored = next(iter(self._found.values()), None)
        return 0 if stored is None else int(stored.shape[0])

    def save(self) -> None:
        """A client never writes the store."""


class StoreDense:
    """`DenseRanking.rerank` for a `StoreIndex`: the last question's candidates."""

    def __init__(self, index: StoreIndex, embedder: Embedder, params: RetrievalParams,
                 warn: Callable[[str], None]) -> None:
        self.index = index
        self.embedder = embedder
        self.params = params
        self.warn = warn
        self._questions: LRUCache[str, np.ndarray] = LRUCache(QUESTION_CACHE_SIZE)
        self._session: dict[str, np.ndarray] = {}
        self._failed = False
        # (the collection's version, the embedder's row if it is ranked whole, when asked)
        self._whole: tuple[str, tuple[int, int] | None, float] | None = None
        # The indexer cuts windows with the default sizes: other sizes read by key.
        self._default_windows = (params.window_chars, params.window_overlap) == (
            DEFAULT_PARAMS.window_chars, DEFAULT_PARAMS.window_overlap)
        index.dense_read = self.read

    @property
    def active(self) -> bool:
        return not self._failed

    @property
    def chunks(self) -> StoreChunks:
        """The collection's chunks, counted as `dense_coverage` and `/info` count them."""
        return self.index.chunks

    def rerank(self, question: str, ranked: np.ndarray, scores: np.ndarray, *,
               crossing: bool = False) -> Reranked:
        candidates = self.index.last_candidates()
        if candidates is None or self._failed:
            return Reranked(ranked, scores, None)
        dense: DenseRead | None = candidates.dense_read
        if dense is not None and dense.question == question and dense.fused is not None:
            return _in_rows(dense.fused, candidates)  # fused before the chunks were read
        if dense is not None and dense.question == question:  # a joined rendering's
            whole, found = True, dense.read.by_key()
        elif not crossing and (again := self._read_again(question, candidates)) is not None:
            return again
        elif (wider := self._widened(question, candidates)) is not None:
            candidates, (whole, found) = wider[0], (True, wider[1].by_key())
        else:  # the candidates alone: their vectors read now (keyed by text: any snapshot)
            rows = ranked[: self.params.dense_candidates].tolist()
            cut = {row: windows(candidates.chunks.texts[row], self.params.window_chars,
                                self.params.window_overlap) for row in rows}
            keys = sorted({checksum(text) for texts in cut.values() for text in texts})
            with self.index.statements() as conn:
                whole, found = False, _stored_vectors(conn, self.embedder.name, keys)
        fetched = FetchedVectors(found, self._session, self.embedder.name, whole=whole)
        ranking = DenseRanking(candidates.chunks, self.embedder, fetched,  # type: ignore[arg-type]
                               params=self.params, warn=self._warn, questions=self._questions)
        return ranking.rerank(question, ranked, scores, crossing=crossing)

    def read(self, conn: psycopg.Connection[Any], question: str, lexical: np.ndarray,
             fused: bool) -> DenseRead | None:
        """What `question`'s candidates are read with (`StoreIndex.dense_read`) once the
        collection is ranked whole: the chunks nearest it and the window vectors of those
        and of `lexical`'s first (all of them unless `fused`), in one statement, and with
        `fused` the final ranking. None otherwise (the re-ranking reads what it needs)."""
        embedder = self._whole_embedder()
        query = None if embedder is None else self._question_vector(question)
        if embedder is None or query is None or embedder[1] != query.shape[0]:
            return None
        asked = lexical[: self.params.dense_candidates] if fused else lexical
        read = vector_queries.read_windows(conn, self.index.generation_id, embedder, query,
                                           self.params.rank_depth + NEAREST_MARGIN,
                                           rows=asked.tolist())
        if (read.pack_rows < 0).any():  # an indexer is writing: read again in one snapshot
            raise queries.RevisionMoved
        return DenseRead(question, read,
                         fuse(question, query, lexical, read, self.params) if fused else None)

    def _whole_embedder(self) -> tuple[int, int] | None:
        """The embedder's row when questions are ranked against the whole collection."""
        if self._failed or self.params.dense_full_weight <= 0 or not self._default_windows:
            return None
        return self._ranked_whole()

    def _read_again(self, question: str, candidates: StoreCandidates) -> Reranked | None:
        """A follow-up, whose meaning (what is embedded) is not the text ranked: its own
        dense read over the lexical ranking, then the chunks of the final ranking the
        candidates lack, added to them. None when the collection is not ranked whole."""
        lexical = candidates._lexical
        if lexical is None or self._whole_embedder() is None:
            return None
        try:
            with self.index.statements() as conn:
                dense = self.read(conn, question, lexical[: self.params.rank_depth], True)
        except queries.RevisionMoved:  # an indexer is writing: the candidates alone
            return None
        if dense is None or dense.fused is None:
            return None
        k = candidates._ranked[0][1] if candidates._ranked is not None else 1
        reach = dense.fused.rows[: max(self.params.dense_candidates, 16 * k)].tolist()
        chunk_of = dict(zip(dense.read.pack_rows.tolist(), dense.read.ids.tolist(),
                            strict=True))
        present = set(candidates._ids.tolist())
        extra = [row for row in reach if row in chunk_of and chunk_of[row] not in present]
        wider = self.index.widened([chunk_of[row] for row in extra])
        if wider is None:
            return None
        wider._pack_rows = list(candidates._pack_rows or ()) + extra
        return _in_rows(dense.fused, wider)

    def _widened(self, question: str, candidates: StoreCandidates
                 ) -> tuple[StoreCandidates, vector_queries.WindowRead] | None:
        """The candidates with the chunks nearest `question` in the whole collection added,
        and the window vectors of them all (a bridged question ranked on its own words, or
        candidates read while an indexer was writing); None when the collection is not
        ranked whole."""
        embedder = self._whole_embedder()
        query = None if embedder is None else self._question_vector(question)
        if embedder is None or query is None or embedder[1] != query.shape[0]:
            return None
        with self.index.statements() as conn:
            read = vector_queries.read_windows(
                conn, self.index.generation_id, embedder, query,
                self.params.rank_depth + NEAREST_MARGIN, ids=candidates._ids.tolist())
        wider = self.index.widened(read.ids[: read.nearest].tolist())
        return None if wider is None else (wider, read)

    def _question_vector(self, question: str) -> np.ndarray | None:
        """The question embedded (cached), None when the embedder fails (the re-ranking
        meets the same error and says it)."""
        try:
            query = self._questions.get(question)
            if query is None:
                query = self.embedder.embed_queries([question[:MAX_QUERY_CHARS]])[0]
                self._questions[question] = query
        except LLMError:
            return None
        return query

    def _ranked_whole(self) -> tuple[int, int] | None:
        """The embedder's row (id, dimension) when the collection is ranked whole: every
        chunk's windows embedded, and the nearest windows cheap to find (an HNSW index, or
        few enough for an exact scan); None when not. Kept while the collection does not
        change (its generation and revision: an indexing run or an embedding pass moves
        them on), asked again after `RECHECK_S` while not ranked whole."""
        version = self.index.fingerprint
        known = self._whole
        if known is not None and known[0] == version and (
                known[1] is not None or time.monotonic() - known[2] < RECHECK_S):
            return known[1]
        generation = self.index.generation_id
        with self.index.reading() as conn:
            embedder = vector_queries.embedder_row(conn, self.embedder.name)
            # The cheap questions first: counting the embedded chunks walks every window.
            ranked = embedder is not None and (
                (vector_queries.window_count(conn, generation) <= EXACT_SCAN_WINDOWS
                 or vector_queries.has_hnsw(conn, embedder[0]))
                and vector_queries.embedded_chunks(conn, generation, self.embedder.name)
                == len(self.index))
        self._whole = (version, embedder if ranked else None, time.monotonic())
        return self._whole[1]

    def embedded_chunks(self) -> int:
        """Chunks of the collection with every window's vector in the store (for `/info`)."""
        with self.index.reading() as conn:
            return vector_queries.embedded_chunks(conn, self.index.generation_id,
                                                  self.embedder.name)

    def _warn(self, line: str) -> None:
        self._failed = True
        self.warn(line)

    def save(self) -> None:
        """Nothing to save: a client never writes the store."""


def _in_rows(fused: Fused, candidates: StoreCandidates) -> Reranked:
    """`fused` (pack rows) as rows of `candidates`: the rows read, in its order."""
    place = {row: at for at, row in enumerate(candidates._pack_rows or ())}
    kept = np.array([row in place for row in fused.rows.tolist()], dtype=bool)
    rows = np.array([place[row] for row in fused.rows[kept].tolist()], dtype=np.int64)
    return Reranked(rows, fused.scores[kept], fused.similarity)


def _stored_vectors(conn: Any, embedder: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
    rows = conn.execute(
        "SELECT v.key, v.embedding::text FROM docai_vectors v "
        "JOIN docai_embedders e ON e.id = v.embedder_id WHERE e.name = %s AND v.key = ANY(%s)",
        (embedder, [bytes.fromhex(k) for k in keys])).fetchall()
    return {bytes(key).hex(): np.array(text.strip("[]").split(","), dtype=np.float32)
            for key, text in rows}


def store_embedder(settings: Settings, warn: Callable[[str], None]) -> Embedder:
    """The embedder `settings` name, the bundled model when Ollama has none (said to `warn`)."""
    try:
        return embedder_for(settings)
    except LLMError as error:
        warn(messages.DENSE_AUTO_FALLBACK.format(reason=error))
        return BundledE5()


def open_store_dense(
    settings: Settings, index: StoreIndex, warn: Callable[[str], None]
) -> StoreDense:
    """The dense ranking over `index`; what goes wrong with the embedder is said to `warn`."""
    return StoreDense(index, store_embedder(settings, warn), index.params, warn)
