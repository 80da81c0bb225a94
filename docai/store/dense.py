"""Dense ranking over the shared store: window vectors read from pgvector, never written
by a client; `docai index --embed --store` embeds every window once, for the whole team.

A question's candidates are re-ranked exactly as `docai.retrieval.dense.DenseRanking`
re-ranks a local index's (it is that class, over the candidates), with their window
vectors fetched in one query. A window the store has no vector for yet (the collection not
fully embedded) is embedded in this client's memory for the session, never stored. Once
every window of the collection has its vector, the candidates are widened with the chunks
nearest the question in the whole collection (found by the database), and ranked whole as
the local index ranks a complete collection.
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
from docai.records import Progress
from docai.retrieval.dense import MAX_QUERY_CHARS, QUESTION_CACHE_SIZE, DenseRanking, Reranked
from docai.retrieval.embedders import BundledE5, Embedder, embedder_for
from docai.retrieval.params import RetrievalParams
from docai.retrieval.window_vectors import DimensionChanged
from docai.retrieval.windows import windows
from docai.settings import Settings
from docai.store import queries, schema, vector_queries
from docai.store.connection import translated
from docai.store.errors import StoreError
from docai.store.search import StoreCandidates, StoreIndex
from docai.store.store_chunks import StoreChunks
from docai.store.vector_queries import Prefetch

# Chunks beyond `rank_depth` the database's nearest-chunk scan returns, so that its float
# rounding at the cut cannot drop a chunk the exact order here would keep.
NEAREST_MARGIN = 20
# While the collection is not ranked whole, how often a client asks again.
RECHECK_S = 60.0
# Without an HNSW index, the whole-collection ranking only up to this many windows: the
# database's exact scan of 258,973 windows took 140-185 ms a question (a store's hybrid
# question is about 40 ms); this many take about a quarter of that.
EXACT_SCAN_WINDOWS = 65_536
# Chunks read, cut and embedded per transaction of the embedding pass.
EMBED_CHUNKS = 64
EMBED_BATCH = 16


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
        index.prefetch = self.prefetch

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
        read = candidates.prefetched
        if read is not None and read[0].question == question:  # read with the candidates
            whole = read[0].whole
            found = read[1]
        else:  # a follow-up's meaning, or a collection being indexed: read now
            rows: Iterable[int] = ranked[: self.params.dense_candidates].tolist()
            wider = self._with_nearest(question)
            if wider is not None:  # every chunk of it is ranked whole: every vector is read
                candidates, rows = wider, range(len(wider))
            whole = wider is not None
            cut = {row: windows(candidates.chunks.texts[row], self.params.window_chars,
                                self.params.window_overlap) for row in rows}
            keys = sorted({checksum(text) for texts in cut.values() for text in texts})
            with self.index.statements() as conn:  # keyed by text: any snapshot will do
                found = _stored_vectors(conn, self.embedder.name, keys)
        fetched = FetchedVectors(found, self._session, self.embedder.name, whole=whole)
        ranking = DenseRanking(candidates.chunks, self.embedder, fetched,  # type: ignore[arg-type]
                               params=self.params, warn=self._warn, questions=self._questions)
        return ranking.rerank(question, ranked, scores, crossing=crossing)

    def prefetch(self, conn: psycopg.Connection[Any], question: str) -> Prefetch | None:
        """What `question`'s candidates are read with (`StoreIndex.prefetch`): once the
        collection is ranked whole, the chunks nearest it (a statement); the vectors of every
        chunk read, in the same statement as the chunks. None once the embedder failed."""
        if self._failed:
            return None
        embedder = self._ranked_whole() if self.params.dense_full_weight > 0 else None
        query = None if embedder is None else self._question_vector(question)
        if embedder is None or query is None or embedder[1] != query.shape[0]:
            return Prefetch(question, (), self.embedder.name, whole=False)
        nearest = vector_queries.nearest_chunks(conn, self.index.generation_id, embedder,
                                                query, self.params.rank_depth + NEAREST_MARGIN)
        if any(row is None for _, row in nearest):  # not packed: the chunks are read by id
            return Prefetch(question, (), self.embedder.name, whole=False)
        return Prefetch(question, tuple(int(row) for _, row in nearest if row is not None),
                        self.embedder.name, whole=True)

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

    def _with_nearest(self, question: str) -> StoreCandidates | None:
        """With the whole-collection ranking on (`dense_full_weight`) and every window of the
        collection embedded: the candidates widened with the chunks nearest the question in
        the whole collection (found by the database, a few more than the ranking keeps, so
        the order computed here from their vectors is the local index's)."""
        if self.params.dense_full_weight <= 0:
            return None
        embedder = self._ranked_whole()
        if embedder is None:
            return None
        query = self._question_vector(question)
        if query is None or embedder[1] != query.shape[0]:
            return None  # another model behind the name: the re-ranking says so
        with self.index.reading() as conn:
            nearest = vector_queries.nearest_chunks(conn, self.index.generation_id, embedder,
                                                    query, self.params.rank_depth + NEAREST_MARGIN)
        return self.index.widened([chunk_id for chunk_id, _ in nearest])

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


def _stored_vectors(conn: Any, embedder: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
    rows = conn.execute(
        "SELECT v.key, v.embedding::text FROM docai_vectors v "
        "JOIN docai_embedders e ON e.id = v.embedder_id WHERE e.name = %s AND v.key = ANY(%s)",
        (embedder, [bytes.fromhex(k) for k in keys])).fetchall()
    return {bytes(key).hex(): np.array(text.strip("[]").split(","), dtype=np.float32)
            for key, text in rows}


def _embedder(settings: Settings, warn: Callable[[str], None]) -> Embedder:
    try:
        return embedder_for(settings)
    except LLMError as error:
        warn(messages.DENSE_AUTO_FALLBACK.format(reason=error))
        return BundledE5()


def open_store_dense(
    settings: Settings, index: StoreIndex, warn: Callable[[str], None]
) -> StoreDense:
    """The dense ranking over `index`; what goes wrong with the embedder is said to `warn`."""
    return StoreDense(index, _embedder(settings, warn), index.params, warn)


# The chunks of a generation still to embed with one model: those without window rows, and
# those with a window this model has no vector for (another model embedded the collection
# first: the windows are the same texts for every model, the vectors are not).
UNEMBEDDED_CHUNKS = """
SELECT c.id, c.text FROM docai_chunks c
WHERE c.generation_id = %(generation)s AND c.id > %(after)s
  AND (NOT EXISTS (SELECT 1 FROM docai_windows w WHERE w.chunk_id = c.id)
       OR EXISTS (SELECT 1 FROM docai_windows w WHERE w.chunk_id = c.id AND NOT EXISTS (
           SELECT 1 FROM docai_vectors v
           WHERE v.embedder_id = %(embedder)s AND v.key = w.key)))
ORDER BY c.id LIMIT %(limit)s
"""


def embed_collection(conn: psycopg.Connection[Any], settings: Settings, name: str,
                     say: Callable[[str], None], progress: Progress) -> int:
    """Embed every window of the collection the store lacks a vector for (resumable: each
    batch is committed), on the indexer's connection and under its collection lock, so a
    second indexer or a drop waits for the pass; 1 when the embedder failed."""
    url = settings.store or ""
    embedder = _embedder(settings, say)
    params = RetrievalParams()
    started = time.monotonic()
    embedded = 0
    try:
        with translated(url):
            generation = queries.current_generation(conn, name)
            if generation is None:
                raise StoreError(messages.STORE_EMPTY_COLLECTION.format(name=name, url=url))
            embedder_id: int | None = None
            dimension = 0
            if (row := vector_queries.embedder_row(conn, embedder.name)) is not None:
                embedder_id, dimension = row
            conn.commit()
            last = 0
            with progress(messages.DENSE_PROGRESS, generation.chunks, 0) as advance:
                while True:
                    batch = conn.execute(UNEMBEDDED_CHUNKS, {
                        "generation": generation.id, "after": last, "embedder": embedder_id,
                        "limit": EMBED_CHUNKS}).fetchall()
                    if not batch:
                        break
                    last = int(batch[-1][0])
                    texts = {checksum(t): t for _, text in batch
                             for t in windows(text, params.window_chars, params.window_overlap)}
                    have = set()
                    if embedder_id is not None:
                        have = {bytes(k).hex() for (k,) in conn.execute(
                            "SELECT key FROM docai_vectors WHERE embedder_id = %s AND "
                            "key = ANY(%s)", (embedder_id, [bytes.fromhex(k) for k in texts]))}
                    todo = [k for k in texts if k not in have]
                    vectors: list[tuple[str, np.ndarray]] = []
                    try:
                        for start in range(0, len(todo), EMBED_BATCH):
                            part = todo[start:start + EMBED_BATCH]
                            out = embedder.embed_passages([texts[k] for k in part])
                            vectors.extend(zip(part, np.asarray(out, dtype=np.float32),
                                               strict=True))
                    except LLMError as error:
                        say(messages.DENSE_FALLBACK.format(reason=error))
                        return 1
                    with conn.transaction():
                        if vectors and embedder_id is None:
                            dimension = len(vectors[0][1])
                            (embedder_id,) = conn.execute(
                                "INSERT INTO docai_embedders (name, dimension) VALUES (%s, %s) "
                                "ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
                                "RETURNING id", (embedder.name, dimension)).fetchone() or (0,)
                        for _key, vector in vectors:
                            if len(vector) != dimension:
                                raise StoreError(messages.STORE_EMBED_OTHER_DIMENSION.format(
                                    model=embedder.name, got=len(vector), expected=dimension))
                        _insert_vectors(conn, embedder_id, vectors)
                        pairs = [(chunk_id, bytes.fromhex(checksum(t))) for chunk_id, text in batch
                                 for t in windows(text, params.window_chars,
                                                  params.window_overlap)]
                        conn.execute(  # one statement (a pipeline's error would be logged raw)
                            "INSERT INTO docai_windows (generation_id, chunk_id, key) "
                            "SELECT %s, c, k FROM unnest(%s::bigint[], %s::bytea[]) AS u(c, k) "
                            "ON CONFLICT DO NOTHING",
                            (generation.id, [c for c, _ in pairs], [k for _, k in pairs]))
                    embedded += len(vectors)
                    advance(len(batch))
            if embedded:  # readers ask again whether the collection is ranked whole
                with conn.transaction():
                    _moved_on(conn, generation.id)
            if embedder_id is not None and settings.store_hnsw:
                with conn.transaction():
                    schema.ensure_hnsw(conn, embedder_id, dimension)
    finally:
        embedder.close()
    say(messages.STORE_EMBEDDED.format(windows=embedded, chunks=generation.chunks,
                                       seconds=time.monotonic() - started))
    return 0


def _insert_vectors(conn: psycopg.Connection[Any], embedder_id: int | None,
                    vectors: list[tuple[str, np.ndarray]]) -> None:
    if vectors:
        conn.execute(
            "INSERT INTO docai_vectors (embedder_id, key, embedding) SELECT %s, k, e::halfvec "
            "FROM unnest(%s::bytea[], %s::text[]) AS u(k, e) ON CONFLICT DO NOTHING",
            (embedder_id, [bytes.fromhex(k) for k, _ in vectors],
             [_literal(v) for _, v in vectors]))


def _moved_on(conn: psycopg.Connection[Any], generation: int) -> None:
    """The generation's revision moved on (its packs still current if they were): a
    reader's knowledge of how much of it is embedded is keyed by revision."""
    conn.execute(
        "UPDATE docai_generations SET packed_revision = CASE WHEN packed_revision = revision "
        "THEN revision + 1 ELSE packed_revision END, revision = revision + 1 WHERE id = %s",
        (generation,))


def _literal(vector: np.ndarray) -> str:
    """A vector as pgvector's text form, sent as a parameter."""
    return "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
