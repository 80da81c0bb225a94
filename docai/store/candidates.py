"""`StoreCandidates`: one question's candidates from the shared store, ranked and judged by
docai's own `SearchIndex` with the whole collection's statistics.

What depends on the collection beyond the candidates (multi-word names, the best whole
file) is asked of the database through the `CandidateSource` that made them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np
import psycopg

from docai.index.chunk_table import ChunkTable
from docai.index.matrix import TermMatrix
from docai.index.sparse import Csr
from docai.records import Chunk
from docai.retrieval import coverage
from docai.retrieval.params import RetrievalParams
from docai.retrieval.search_index import CollectionStats, SearchIndex
from docai.store import queries
from docai.text.analysis import Analyzer
from docai.text.names import multiword_names, name_pattern


class CandidateSource(Protocol):
    """What candidates need of the collection they came from (`StoreIndex`)."""

    method: str
    params: RetrievalParams

    @property
    def analyzer(self) -> Analyzer: ...

    def reading(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...


def lookup_terms(analyzer: Analyzer, question: str) -> list[str]:
    """Every term the question's ranking and coverage may look up."""
    terms = set(analyzer.query_terms(question))
    for concept in analyzer.query_concepts(question):
        terms.update(concept.alternatives)
        terms.update(concept.terms)
    for name in multiword_names(question):
        for concept in analyzer.query_concepts(" ".join(name)):
            terms.update(concept.terms)
    return sorted(terms)


def average_length(generation: queries.Generation) -> float:
    """Mean terms per chunk, as numpy's mean of the lengths gives it (an exact total)."""
    return generation.total_length / generation.chunks if generation.chunks else 0.0


class StoreCandidates(SearchIndex):
    """A question's candidates with the collection's statistics: ranked, deduplicated and
    judged by `SearchIndex` itself. What depends on the whole collection beyond the
    candidates (multi-word names, the best whole file) is asked of the database."""

    _store: CandidateSource
    _ids: np.ndarray
    _generation: queries.Generation
    # ((question, k), its ranking) when the packs ranked the whole collection for it
    _ranked: tuple[tuple[str, int], tuple[np.ndarray, np.ndarray] | None] | None = None
    # A dense question's window vectors and final ranking (`dense_fusion.DenseRead`)
    dense_read: Any = None
    # The pack rows of the whole lexical ranking, when the packs ranked the collection
    _lexical: np.ndarray | None = None
    # The pack rows of the chunks, in their order, when the packs ranked them
    _pack_rows: list[int] | None = None

    def rank(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        if self._ranked is not None and self._ranked[0] == (question, k):
            return self._ranked[1]
        return super().rank(question, k)

    @classmethod
    def of(
        cls, store: CandidateSource, chunks: Sequence[Chunk], ids: Sequence[int],
        postings: tuple[np.ndarray, dict[int, tuple[str, int]]],
        question_frequency: dict[str, int], generation: queries.Generation,
    ) -> StoreCandidates:
        entries, terms = postings
        frequency = dict(question_frequency)
        frequency.update(terms.values())
        term_ids = np.array(sorted(terms), dtype=np.int64)
        texts = [terms[t][0] for t in term_ids.tolist()]
        order = sorted(range(len(texts)), key=texts.__getitem__)  # columns in term order
        vocabulary = tuple(texts[j] for j in order)
        column_of_id = np.empty(len(order), dtype=np.int64)
        column_of_id[np.array(order, dtype=np.int64)] = np.arange(len(order))
        chunk_ids = np.array(ids, dtype=np.int64)
        by_id = np.argsort(chunk_ids)
        rows = by_id[np.searchsorted(chunk_ids[by_id], entries[:, 0])]
        columns = column_of_id[np.searchsorted(term_ids, entries[:, 1])]
        layout = np.lexsort((columns, rows))
        rows = rows[layout]
        counts = Csr(
            entries[layout, 2].astype(np.int32), columns[layout].astype(np.int32),
            np.searchsorted(rows, np.arange(len(ids) + 1)).astype(np.int64),
            (len(ids), len(vocabulary)),
        )
        stats = CollectionStats(generation.chunks, average_length(generation), frequency)
        index = cls(ChunkTable.of(chunks), TermMatrix(vocabulary, counts), store.method,
                    analyzer=store.analyzer, params=store.params, collection=stats)
        index._store, index._ids, index._generation = store, np.array(ids, dtype=np.int64), \
            generation
        return index

    def _phrases(
        self, question: str
    ) -> tuple[tuple[np.ndarray, ...], tuple[int, ...] | None]:
        """As `SearchIndex._chunks_naming` does over the whole collection: chunks holding
        every word of the name (none too common), then the name itself in their text."""
        rows: list[np.ndarray] = []
        found: list[int] = []
        self._phrase_files: list[np.ndarray] = []
        generation = self._generation.id
        names = multiword_names(question)
        if not names:  # no statement to send: no transaction either
            return (), ()
        with self._store.reading() as conn:
            for words in names:
                holding: np.ndarray | None = None
                common = False
                for concept in self._analyzer.query_concepts(" ".join(words)):
                    ids = queries.chunks_holding_any(conn, generation, concept.terms)
                    if len(ids) > self.params.common_name_word_share * self._rows:
                        common = True
                        break
                    holding = ids if holding is None else np.intersect1d(holding, ids)
                if common or holding is None:
                    continue
                pattern = name_pattern(words)
                matched = [(chunk_id, file_id) for chunk_id, file_id, text in
                           queries.texts_with_files(conn, holding.tolist())
                           if pattern.search(text.encode("utf-8", "surrogatepass"))]
                rows.append(np.flatnonzero(np.isin(self._ids, [c for c, _ in matched])))
                found.append(len(matched))
                self._phrase_files.append(np.array([f for _, f in matched], dtype=np.int64))
        return tuple(rows), tuple(found)

    def best_file(self, question: str, max_tokens: float = math.inf) -> tuple[str | None, float]:
        concepts = self._concepts(question)
        weights = self.concept_weights(concepts)
        vocabulary = {j: term for term, j in self._column.items()}
        wanted = [[vocabulary[j] for j in columns.tolist()] for columns in concepts.columns]
        terms = sorted({term for group in wanted for term in group})
        with self._store.reading() as conn:
            pairs = queries.files_holding(conn, self._generation.id, terms) if terms else []
            phrase_files = getattr(self, "_phrase_files", [])
            file_ids = sorted({f for f, _ in pairs}.union(*(set(f.tolist()) for f in phrase_files)))
            files = sorted(queries.files_by_id(conn, file_ids), key=lambda f: f[1])
        if not files:
            return None, 0.0
        position = {file_id: j for j, (file_id, _, _) in enumerate(files)}
        present = np.zeros((len(concepts), len(files)), dtype=bool)
        holders: dict[str, list[int]] = {}
        for file_id, term in pairs:
            holders.setdefault(term, []).append(position[file_id])
        for concept, group in enumerate(wanted):
            for term in group:
                present[concept, holders.get(term, [])] = True
        for phrase, file_array in enumerate(phrase_files, start=len(concepts.columns)):
            present[phrase, [position[f] for f in file_array.tolist()]] = True
        eligible = np.array([tokens <= max_tokens for _, _, tokens in files], dtype=bool)
        return coverage.best_covered(present, [source for _, source, _ in files], concepts,
                                     weights, self.params, eligible)
