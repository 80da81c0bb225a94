"""Scoring a set: each question's outcome under a configuration, the summaries, the reference
ranking (bm25s), and the dense ranking with its cached vectors and pooled check."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


from eval_sets import MAX_FILE_TOKENS, TOP_K  # noqa: E402

from docai.index import vector_store  # noqa: E402
from docai.records import Chunk, Hit  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking, open_dense_ranking  # noqa: E402
from docai.retrieval.embedders import Embedder  # noqa: E402
from docai.retrieval.evaluation import Outcome, Question, Summary  # noqa: E402
from docai.retrieval.params import RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex  # noqa: E402
from docai.retrieval.verdict import Passages, retrieve, search  # noqa: E402
from docai.retrieval.window_vectors import WindowVectors  # noqa: E402
from docai.settings import Settings  # noqa: E402


def dense_ranking(
    settings: Settings, index: SearchIndex, embedder: Embedder, params: RetrievalParams,
    full: bool,
) -> DenseRanking:
    """The dense ranking of the set, its question vectors kept on disk too; with `full`,
    every window embedded first."""
    cache_dir = settings.resolved_cache_dir()
    stored = StoredQueries(embedder, vector_store.store_path(cache_dir, embedder.name + "?q"))
    dense = open_dense_ranking(index.chunks, stored, cache_dir, params=params, warn=print)
    if full:
        started = time.perf_counter()
        report = dense.embed_pending(prune=False)
        print(f"(whole collection embedded: {report.embedded} new windows in "
              f"{time.perf_counter() - started:.0f} s)")
    return dense


class StoredQueries:
    """An embedder whose question vectors are also kept on disk: scoring a set embeds
    each question once, not once per run."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self._inner = inner
        self._queries = WindowVectors(path, inner.name + "?q")

    @property
    def name(self) -> str:
        return self._inner.name

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        keys = [vector_store.checksum(text) for text in texts]
        missing = [text for text, key in zip(texts, keys, strict=True)
                   if key in self._queries.missing([key])]
        if missing:
            self._queries.add([vector_store.checksum(t) for t in missing],
                              self._inner.embed_queries(missing))
            self._queries.save()
        return self._queries.get(keys)

    def close(self) -> None:
        self._inner.close()


def reference_summary(questions: Sequence[Question], chunks: Sequence[Chunk]) -> Summary:
    """The issue's yardstick: standard BM25 (bm25s defaults) with English Snowball stems and
    stop words over the same chunks, ranking only (it never refuses)."""
    stemmer = Stemmer.Stemmer("english")

    def tokens(texts: list[str]) -> object:
        return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)

    retriever = bm25s.BM25()
    retriever.index(tokens([chunk.text for chunk in chunks]), show_progress=False)

    def rank(question: str, k: int) -> list[Hit]:
        found, scores = retriever.retrieve(tokens([question]), k=min(k, len(chunks)),
                                           show_progress=False)
        return [Hit(chunks[int(row)], float(score))
                for row, score in zip(found[0], scores[0], strict=True) if score > 0]

    outcomes = evaluation.evaluate(questions, rank, lambda question: Passages(()))
    return evaluation.summarise(outcomes)


def set_summary(
    questions: Sequence[Question], index: SearchIndex, bar: float,
    dense: DenseRanking | None = None,
) -> Summary:
    """Figures of `index` (re-ranked by `dense` when given) with the passage bar `bar` (the
    file bar is the index's own)."""
    return evaluation.summarise(outcomes_of(questions, index, bar, dense))


def outcomes_of(
    questions: Sequence[Question], index: SearchIndex, bar: float,
    dense: DenseRanking | None = None,
) -> list[Outcome]:
    """Each question's outcome, as `set_summary` scores them."""
    return evaluation.evaluate(
        questions,
        lambda q, k: search(index, q, k, 0.0, dense),
        lambda q: retrieve(index, q, TOP_K, bar, dense, max_file_tokens=MAX_FILE_TOKENS),
    )
