"""Optional dense retrieval: chunk embeddings from a local model, ranked by cosine similarity.

Why alongside the lexical index: TF-IDF and BM25 only match shared terms, so a question
that paraphrases the docs ("como deixo mais rápido?" against a section on "desempenho")
finds nothing. An embedding model places both near each other. Its ranking is fused with
the lexical ones by reciprocal rank fusion (`docai.retrieval.fusion`), which needs no score
calibration between cosine and BM25.

Embedding is the expensive part, so `build_dense_index` embeds only chunks whose text is
not in the on-disk store (`docai.index.vector_store`), and `DenseRetriever` keeps recent
question vectors in memory. Errors from the model server surface as the `LLMError` types
of `docai.llm.errors`, with messages that name `--embed-model`; the caller then falls back
to lexical retrieval alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from cachetools import LRUCache

from docai import messages
from docai.errors import CacheError
from docai.index import vector_store
from docai.index.chunk_table import ChunkTable
from docai.llm.errors import LLMError, MalformedResponse, ModelNotFound, ServerError
from docai.records import Chunk, Progress, progress_for
from docai.retrieval.embedding_prompts import prompts_for
from docai.retrieval.fusion import top
from docai.settings import Settings

# Texts per /api/embed request from here: small enough that the progress bar moves and a
# failure late in a long build loses little (what was embedded is saved before raising).
EMBED_BATCH_SIZE = 32
QUESTION_CACHE_SIZE = 256
# Below this many chunks to embed the bar would only flicker.
MIN_CHUNKS_FOR_BAR = 128
# How the model server says a model has no embedding head (Ollama: HTTP 400/500/501).
_CANNOT_EMBED = "support embeddings"


class Embedder(Protocol):
    """Anything that turns texts into vectors, e.g. `docai.llm.ollama.OllamaClient`."""

    def embed(self, texts: Sequence[str], *, model: str) -> list[list[float]]: ...


@dataclass(frozen=True, eq=False)
class DenseIndex:
    """Unit-length float32 `vectors[i]` for chunk i, in the order of `SearchIndex.chunks`.

    `tiebreak[i]` is chunk i's place in (source, ordinal) order (`ChunkTable.tiebreak`, the
    lexical rankings' tie rule), so equal cosines never make results depend on build order.
    """

    vectors: np.ndarray
    tiebreak: np.ndarray

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.tiebreak.shape != (self.vectors.shape[0],):
            raise ValueError(
                f"vectors {self.vectors.shape} do not match tiebreak {self.tiebreak.shape}"
            )

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def rank(self, question_vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        """The `n` chunks most similar to the question: (row, cosine), best first."""
        if len(self) == 0 or n < 1:
            return []
        query = _unit_rows(np.asarray(question_vector, dtype=np.float32).reshape(1, -1))[0]
        if query.shape != (self.dimension,):
            raise ValueError(f"question vector of {query.shape[0]} for {self.dimension} dims")
        scores = self.vectors @ query
        rows = top(np.arange(len(self)), scores, self.tiebreak, n)
        return [(int(row), float(scores[row])) for row in rows.tolist()]


@dataclass(frozen=True, slots=True)
class DenseReport:
    """What a build did; `notices` are one-line pt-BR messages to show the user."""

    model: str
    chunks: int
    embedded: int  # distinct chunk texts sent to the model this time
    reused: int  # distinct chunk texts whose vectors came from the store
    dropped: int  # stored vectors of chunks that no longer exist
    dimension: int
    notices: tuple[str, ...]


def build_dense_index(
    chunks: Sequence[Chunk],
    embedder: Embedder,
    store_path: Path,
    *,
    model: str,
    progress: Progress | None = None,
    rebuild: bool = False,
) -> tuple[DenseIndex, DenseReport]:
    """Vectors for every chunk, embedding only texts the store at `store_path` lacks.

    The store is rewritten (atomically) to hold exactly the current chunks' vectors. If the
    model fails part-way, the vectors obtained so far are saved before the `LLMError` is
    raised, so the next attempt resumes instead of starting over.
    """
    document_prompt = prompts_for(model).document
    embedded = [document_prompt + chunk.text for chunk in chunks]
    keys = [vector_store.checksum(text) for text in embedded]
    texts = dict(zip(keys, embedded, strict=True))
    stored, notices = _read_store(store_path, model, rebuild)
    known = stored.by_key() if stored is not None else {}
    fresh: dict[str, np.ndarray] = {}
    dropped = len(known.keys() - texts.keys())
    try:
        missing = [key for key in texts if key not in known]
        with progress_for(
            progress, messages.DENSE_PROGRESS, len(missing), minimum=MIN_CHUNKS_FOR_BAR
        ) as advance:
            _embed_into(fresh, missing, texts, embedder, model, advance)
            if not _compatible(known, fresh):
                notices.append(_rebuilt(model, messages.DENSE_DIMENSION_CHANGED.format(
                    new=_dimension(fresh), old=_dimension(known))))
                known = {}
                _embed_into(fresh, [k for k in texts if k not in fresh], texts, embedder,
                            model, advance)
    finally:
        table = (known if _compatible(known, fresh) else {}) | fresh
        if fresh or dropped or notices:
            saved = [key for key in texts if key in table]
            notices.extend(_save(store_path, model, saved, table))
    dimension = _dimension(table) or (stored.dimension if stored is not None else 0)
    vectors = _stack([table[key] for key in keys], dimension)
    report = DenseReport(
        model=model,
        chunks=len(chunks),
        embedded=len(fresh),
        reused=len(texts) - len(fresh),
        dropped=dropped,
        dimension=dimension,
        notices=tuple(notices),
    )
    return DenseIndex(vectors, ChunkTable.of(chunks).tiebreak()), report


class DenseRetriever:
    """Ranks chunks for a question with one embedding call, or none for a repeated question."""

    def __init__(
        self,
        index: DenseIndex,
        embedder: Embedder,
        model: str,
        *,
        cache_size: int = QUESTION_CACHE_SIZE,
    ) -> None:
        self.index = index
        self.model = model
        self._query_prompt = prompts_for(model).query
        self._embedder = embedder
        self._questions: LRUCache[str, np.ndarray] = LRUCache(cache_size)

    def rank(self, question: str, n: int) -> list[tuple[int, float]]:
        """(row, cosine) of the `n` closest chunks, best first. Raises `LLMError` subclasses."""
        if len(self.index) == 0 or n < 1:
            return []
        vector = self._questions.get(question)
        if vector is None:
            vector = _embed(self._embedder, [self._query_prompt + question], self.model)[0]
            if vector.shape[0] != self.index.dimension:
                raise MalformedResponse(messages.DENSE_QUESTION_DIMENSION.format(
                    model=self.model, got=vector.shape[0], expected=self.index.dimension))
            self._questions[question] = vector
        return self.index.rank(vector, n)


class DenseRanking:
    """The dense ranking as retrieval consumes it: chunk rows only, and switched off after
    the first model error, so a server that goes away mid-session costs one warning and
    answers carry on with the lexical ranking alone."""

    def __init__(self, retriever: DenseRetriever, warn: Callable[[str], None]) -> None:
        self._retriever: DenseRetriever | None = retriever
        self._warn = warn

    def rows(self, question: str, n: int) -> list[int]:
        if self._retriever is None:
            return []
        try:
            return [row for row, _ in self._retriever.rank(question, n)]
        except LLMError as error:
            self._retriever = None
            self._warn(messages.DENSE_FALLBACK.format(reason=error))
            return []


def open_dense(
    settings: Settings,
    chunks: Sequence[Chunk],
    *,
    progress: Progress | None,
    warn: Callable[[str], None],
) -> DenseRanking | None:
    """The dense ranking when `--embed-model` is set, else None.

    Embeds what the store lacks (`build_dense_index`); when the model server cannot embed,
    warns and returns None: lexical retrieval alone still answers.
    """
    if not settings.embed_model or not chunks:
        return None
    from docai.llm.ollama import OllamaClient  # the only server with an embeddings API here

    client = OllamaClient(settings.ollama_url, settings.model, read_timeout=settings.read_timeout)
    store = vector_store.store_path(settings.resolved_cache_dir(), settings.embed_model)
    try:
        index, report = build_dense_index(
            chunks, client, store, model=settings.embed_model,
            progress=progress, rebuild=settings.rebuild,
        )
    except LLMError as error:
        client.close()
        warn(messages.DENSE_FALLBACK.format(reason=error))
        return None
    for notice in report.notices:
        warn(notice)
    return DenseRanking(DenseRetriever(index, client, settings.embed_model), warn)


def _read_store(
    path: Path, model: str, rebuild: bool
) -> tuple[vector_store.StoredVectors | None, list[str]]:
    if rebuild:
        return None, [_rebuilt(model, messages.CACHE_REBUILD_ASKED)]
    try:
        return vector_store.load(path, model), []
    except CacheError as error:
        return None, [_rebuilt(model, str(error))]


def _rebuilt(model: str, reason: str) -> str:
    return messages.DENSE_STORE_REBUILT.format(model=model, reason=reason)


def _save(path: Path, model: str, keys: list[str], table: dict[str, np.ndarray]) -> list[str]:
    """Write the store; a notice instead of an error when the folder is unwritable."""
    dimension = _dimension(table)
    stored = vector_store.StoredVectors(
        model=model,
        keys=np.asarray(keys, dtype=vector_store.CHECKSUM_DTYPE).reshape(-1),
        vectors=_stack([table[key] for key in keys], dimension),
    )
    try:
        vector_store.save(path, stored)
    except OSError as error:
        return [messages.DENSE_NOT_SAVED.format(path=path, reason=error.strerror or error)]
    return []


def _embed_into(
    table: dict[str, np.ndarray],
    keys: list[str],
    texts: dict[str, str],
    embedder: Embedder,
    model: str,
    advance: Callable[[int], None],
) -> None:
    """Add the vectors of `keys` to `table`, batch by batch (kept if a later batch fails)."""
    for start in range(0, len(keys), EMBED_BATCH_SIZE):
        batch = keys[start : start + EMBED_BATCH_SIZE]
        vectors = _embed(embedder, [texts[key] for key in batch], model)
        expected = _dimension(table)
        if expected and vectors.shape[1] != expected:
            raise MalformedResponse(messages.DENSE_BAD_VECTORS.format(
                model=model, problem=messages.DENSE_PROBLEM_SHAPE))
        table.update(zip(batch, vectors, strict=True))
        advance(len(batch))


def _embed(embedder: Embedder, texts: list[str], model: str) -> np.ndarray:
    """Unit-length float32 rows, one per text; server errors reworded for `--embed-model`."""
    try:
        raw = embedder.embed(texts, model=model)
    except ModelNotFound as error:
        raise ModelNotFound(
            messages.DENSE_MODEL_NOT_FOUND.format(model=model), model=model
        ) from error
    except ServerError as error:
        if _CANNOT_EMBED not in error.server_message:
            raise
        raise ServerError(
            messages.DENSE_CANNOT_EMBED.format(model=model, detail=error.server_message),
            server_message=error.server_message,
            status=error.status,
        ) from error
    if len(raw) != len(texts):
        problem = messages.DENSE_PROBLEM_COUNT.format(got=len(raw), expected=len(texts))
        raise MalformedResponse(messages.DENSE_BAD_VECTORS.format(model=model, problem=problem))
    try:
        vectors = np.asarray(raw, dtype=np.float32)
    except ValueError as error:  # ragged lists
        raise MalformedResponse(messages.DENSE_BAD_VECTORS.format(
            model=model, problem=messages.DENSE_PROBLEM_SHAPE)) from error
    if vectors.ndim != 2 or vectors.shape[1] == 0:
        raise MalformedResponse(messages.DENSE_BAD_VECTORS.format(
            model=model, problem=messages.DENSE_PROBLEM_SHAPE))
    if not np.isfinite(vectors).all():
        raise MalformedResponse(messages.DENSE_BAD_VECTORS.format(
            model=model, problem=messages.DENSE_PROBLEM_VALUES))
    return _unit_rows(vectors)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero: it matches nothing)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _compatible(known: dict[str, np.ndarray], fresh: dict[str, np.ndarray]) -> bool:
    """False when stored and new vectors differ in size (the model behind the name changed)."""
    return not known or not fresh or _dimension(known) == _dimension(fresh)


def _dimension(table: dict[str, np.ndarray]) -> int:
    return int(next(iter(table.values())).shape[0]) if table else 0


def _stack(rows: list[np.ndarray], dimension: int) -> np.ndarray:
    if not rows:
        return np.zeros((0, dimension), dtype=np.float32)
    return np.stack(rows).astype(np.float32, copy=False)
