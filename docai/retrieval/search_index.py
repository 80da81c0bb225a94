"""The search over the stored term counts: ranking, near-duplicates, the coverage bar.

`SearchIndex` derives every weight from the counts (`docai.index.matrix.TermMatrix`) in its
constructor, so an index assembled from stored parts ranks and scores exactly like one
built from scratch. The one exception is the TF-IDF idf of a cached index: it is itself a
function of the counts, stored with them (`scoring.smooth_idf`), and taken as given so a
warm start need not import scikit-learn to recompute it.

Coverage bar: `Hit.score` is the chosen method's own score (cosine for "tfidf", BM25 for
"bm25", reciprocal-rank-fusion for "hybrid"), but `min_coverage` is always compared with the
*concept coverage* of the question by the top hits together (`docai.retrieval.coverage`):
bounded (0..1), comparable across questions and corpora, and, unlike a cosine, low for a
question whose specific subject the docs never mention even when it shares their everyday
words. One bar then means the same thing whatever `--retrieval` says.

Every tuned number (depths, fusion weights, bars, shares) comes from the index's
`RetrievalParams` (`docai.retrieval.params`).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from docai.byte_text import key_bytes
from docai.index.build_report import BuildReport
from docai.index.chunk_table import ChunkTable
from docai.index.matrix import TermMatrix, canonical
from docai.index.reuse import survey, unchanged_index
from docai.index.scoring import Bm25Scorer, TfidfScorer, smooth_idf_of
from docai.records import Chunk, Hit, Progress
from docai.retrieval import coverage, crosslang, dedup
from docai.retrieval.coverage import Concepts
from docai.retrieval.fusion import drop_near_duplicates, reciprocal_rank_fusion, top
from docai.retrieval.history import history_below
from docai.retrieval.params import DEFAULT_METHOD, DEFAULT_PARAMS, METHODS, RetrievalParams
from docai.settings import Settings
from docai.text.analysis import ANALYZER_VERSION, Analyzer, default_analyzer
from docai.text.names import multiword_names, name_pattern


def open_index(
    settings: Settings, *, progress: Progress | None = None
) -> tuple[SearchIndex, BuildReport]:
    """The search index of `settings.docs_dir`, built or refreshed through the on-disk cache;
    raises DocsFolderError only.

    The build (`docai.index.build`) is imported only when a file changed: it brings the
    parsers, worker processes, scipy and scikit-learn, a third of a second of imports that
    a warm start, which only reads the cache, does not need.
    """
    found = survey(settings)
    if found.unchanged:
        stored, report = unchanged_index(found)
    else:
        from docai.index.build import finish

        stored, report = finish(found, settings, progress=progress)
    matrix = TermMatrix(stored.vocabulary, stored.counts, stored.column_order)
    return SearchIndex(stored.chunks, matrix, settings.retrieval, idf=stored.idf), report


@dataclass(frozen=True, slots=True)
class CollectionStats:
    """The statistics of a whole collection, for a `SearchIndex` over some of its chunks (a
    shared store's candidates for one question): its chunks are then scored, judged and
    deduplicated exactly as in an index of the whole collection.

    `document_frequency` must hold every term of the chunks given, and every question term
    the collection holds (a term absent here is one the collection does not know)."""

    rows: int
    average_length: float  # terms per chunk, the exact mean (total / rows)
    document_frequency: Mapping[str, int]


class SearchIndex:
    """Ranks chunks for a question. Build once (weights are computed here), query often.

    `analyzer` must be the one that produced the matrix (default: `default_analyzer()`).
    `params` holds every tuned number of ranking and refusal (`RetrievalParams`). `chunks`
    are kept as a `ChunkTable` (a cached index comes as one): ranking reads its columns,
    and only the chunks a query returns are ever decoded.

    `idf`, when given, must be `scoring.smooth_idf` of `matrix`'s columns (as the cache
    stores it). It is used only when `matrix` is canonical already (a loaded or merged
    index is): otherwise the columns are rearranged and the idf is computed afresh.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        matrix: TermMatrix,
        method: str = DEFAULT_METHOD,
        *,
        analyzer: Analyzer | None = None,
        params: RetrievalParams = DEFAULT_PARAMS,
        idf: np.ndarray | None = None,
        collection: CollectionStats | None = None,
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        if len(chunks) != matrix.rows:
            raise ValueError(f"{len(chunks)} chunks for {matrix.rows} matrix rows")
        if idf is not None and idf.shape != (len(matrix.vocabulary),):
            raise ValueError(f"idf of shape {idf.shape} for {len(matrix.vocabulary)} terms")
        self.chunks: ChunkTable = ChunkTable.of(chunks)
        self.method = method
        self._analyzer = analyzer or default_analyzer()
        self.params = params
        self._matrix, columns, as_given = canonical(matrix)
        vocabulary = self._matrix.vocabulary
        if collection is None:
            self._rows = matrix.rows
            self._frequency = np.diff(columns.indptr)
            statistics = None
        else:  # columns past the matrix's: terms of the collection these chunks lack
            held = set(vocabulary)
            vocabulary += tuple(sorted(t for t in collection.document_frequency if t not in held))
            self._rows = collection.rows
            self._frequency = np.array(
                [collection.document_frequency[t] for t in vocabulary], dtype=np.int64)
            idf = smooth_idf_of(self._frequency, collection.rows)
            as_given = True
            statistics = (self._frequency, collection.rows, collection.average_length)
        self._column = {term: j for j, term in enumerate(vocabulary)}
        self._tfidf = TfidfScorer.fit(self._matrix.counts, columns, idf if as_given else None)
        self._bm25 = Bm25Scorer.fit(self._matrix.counts, columns, params.bm25_k1, params.bm25_b,
                                    statistics)
        self._sources, self._source_of = self.chunks.sources_by_name()
        self._tiebreak = self.chunks.tiebreak()
        self._last_concepts: tuple[str, Concepts] | None = None

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def matrix(self) -> TermMatrix:
        """The term counts searched (canonical), e.g. to rank the same chunks another way."""
        return self._matrix

    @cached_property
    def fingerprint(self) -> str:
        """Hash of method, analyzer version, vocabulary, counts and every chunk's identity
        (source, ordinal, heading path, text), hashed from the table's columns as they are:
        the names of the sources in sorted order and each chunk's rank among them, so the
        same chunks give the same hash however their table was assembled."""
        digest = hashlib.sha256()
        digest.update(f"{self.method}\0{ANALYZER_VERSION}\0".encode())
        digest.update(key_bytes("\0".join(self._matrix.vocabulary)))
        digest.update(key_bytes("\0".join(["", *self._sources])))  # names from bytes too
        counts, chunks = self._matrix.counts, self.chunks
        for array, dtype in (
            (counts.indptr, "<i8"), (counts.indices, "<i4"), (counts.data, "<i4"),
            (self._source_of, "<i8"), (chunks.ordinals, "<i8"),
            (chunks.heading_offsets, "<i8"), (chunks.heading_parts.offsets, "<i8"),
            (chunks.heading_parts.data, "u1"), (chunks.texts.offsets, "<i8"),
            (chunks.texts.data, "u1"),
        ):
            digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
        return digest.hexdigest()

    @cached_property
    def languages(self) -> Mapping[str, float]:
        """Share of the passages in each language, from a sample (`crosslang`)."""
        return crosslang.collection_languages(self.chunks.texts)

    def _query(self, question: str) -> tuple[np.ndarray, np.ndarray]:
        """Known question terms as (column ids ascending, occurrence counts)."""
        known = Counter(
            self._column[term]
            for term in self._analyzer.query_terms(question)
            if term in self._column
        )
        ids = np.array(sorted(known), dtype=np.int64)
        return ids, np.array([known[j] for j in ids.tolist()], dtype=np.float64)

    def _concepts(self, question: str) -> Concepts:
        """The question's distinct concepts as column ids of their known terms, and its
        multi-word names as the chunks that contain them.

        The last question's are kept: a refused question asks for them twice (passages,
        then the best file).
        """
        if self._last_concepts is not None and self._last_concepts[0] == question:
            return self._last_concepts[1]
        distinct = tuple(dict.fromkeys(self._analyzer.query_concepts(question)))
        columns = tuple(self._known_columns(c.alternatives) for c in distinct)
        concepts = Concepts(columns, tuple(c.specific for c in distinct),
                            coverage.named(distinct, columns), *self._phrases(question))
        self._last_concepts = (question, concepts)
        return concepts

    def _phrases(
        self, question: str
    ) -> tuple[tuple[np.ndarray, ...], tuple[int, ...] | None]:
        """`Concepts.phrase_rows` and `phrase_frequency` of the question's multi-word names."""
        found = [rows for name in multiword_names(question)
                 if (rows := self._chunks_naming(name)) is not None]
        return tuple(found), None

    def _known_columns(self, terms: Sequence[str]) -> np.ndarray:
        return np.array(sorted({self._column[t] for t in terms if t in self._column}),
                        dtype=np.int64)

    def _chunks_naming(self, words: tuple[str, ...]) -> np.ndarray | None:
        """Ids of the chunks whose text contains the multi-word name of `words`; None when
        no word of it is a search term (nothing to look it up by) or one is common (in more
        than `common_name_word_share` of the chunks): such a word is the product's own name
        or an everyday one ("Flask CLI", "Sphinx Autodoc", "Python Warnings"), and the docs
        speak of the thing without the exact pair.

        Only chunks holding every word of it are matched, on their stored bytes (no text
        is decoded): a few of the chunks, in milliseconds.
        """
        candidates: np.ndarray | None = None
        for concept in self._analyzer.query_concepts(" ".join(words)):
            columns = self._known_columns(concept.terms)
            rows = np.unique(self._tfidf.by_column.column_rows(columns)).astype(np.int64)
            if len(rows) > self.params.common_name_word_share * self._rows:
                return None
            candidates = rows if candidates is None else np.intersect1d(candidates, rows)
        if candidates is None:
            return None
        return self.chunks.texts.matching(name_pattern(words), candidates)

    def search(
        self,
        question: str,
        k: int,
        min_coverage: float | None = None,
    ) -> list[Hit]:
        """Up to `k` hits, best first; [] when no question term is known or when even the
        `k` hits together cover less of the question than `min_coverage`.

        `min_coverage` is a concept coverage (0..1) whatever the method; None means the
        passage bar of `params` (`min_coverage`). The bar accepts or refuses the top hits
        as a whole: it says whether the docs answer the question, not how to order them.
        """
        ranking = self.rank(question, k)
        if ranking is None:
            return []
        ranked, scores = ranking
        return self.top_hits(question, ranked, scores, k, min_coverage)

    def rank(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The lexical ranking for `question`: (chunk ids, the method's scores), best first,
        as deep as `rank_depth` (at least 4 `k`); None when no question term is known."""
        ids, counts = self._query(question)
        if len(ids) == 0 or k < 1:
            return None
        return ranking(self.method, self._tfidf, self._bm25, ids, counts, self._tiebreak,
                       self.params, k)

    def top_hits(
        self,
        question: str,
        ranked: np.ndarray,
        scores: np.ndarray,
        k: int,
        min_coverage: float | None = None,
        similarity: float | None = None,
    ) -> list[Hit]:
        """The first `k` of a ranking (`rank`, maybe re-ranked), near-duplicates skipped, or
        [] when they fail the bar: their concept coverage of the question, with the dense
        `similarity` of the question to them when there is one (`covers`). Those that pass
        are the first `k` once history passages are placed below content
        (`docai.retrieval.history`): the bar judged the order before."""
        positions = self._diverse_positions(ranked, k)
        bar = self.passage_bar(min_coverage)
        if bar > 0:
            covered = self.coverage(question, ranked[positions])
            if not covers(covered, similarity, bar, self.params):
                return []
        shown, scores = history_below(question, self.chunks, ranked, scores, self.params)
        if shown is not ranked:
            ranked, positions = shown, self._diverse_positions(shown, k)
        return [Hit(self.chunks[ranked[p]], float(scores[p]),
                    self.coverage(question, ranked[p:p + 1])) for p in positions]

    def passage_bar(self, min_coverage: float | None) -> float:
        """The coverage the top passages must reach: the user's bar, else the tuned one."""
        return self.params.min_coverage if min_coverage is None else min_coverage

    def coverage(self, question: str, rows: np.ndarray) -> float:
        """Concept coverage (0..1) of the question by the chunk ids in `rows` together."""
        concepts = self._concepts(question)
        weights = self.concept_weights(concepts)
        return coverage.passages_coverage(
            self._matrix.counts, rows, concepts, weights, self.params
        )

    def specific_unknown(self, question: str) -> bool:
        """Whether the question names (or a rare word means) what the collection lacks."""
        concepts = self._concepts(question)
        return bool((concepts.flags()[0] & ~concepts.known()).any())

    def concept_weights(self, concepts: Concepts) -> np.ndarray:
        """Each concept's weight in the coverage of a question (`coverage.concept_weights`)."""
        return coverage.concept_weights(self._frequency, self._rows, concepts, self.params)

    def file_text(self, source: str) -> str | None:
        """The text of `source` as the index holds it, or None: read the file from the docs
        folder (a local index; a shared store's client may have no docs folder)."""
        return None

    @cached_property
    def _source_tokens(self) -> np.ndarray:
        """Tokens of each source (its chunks' sum), for the fallback's size limit; computed
        on the first fallback, not at start-up."""
        return np.bincount(
            self._source_of, weights=self.chunks.tokens, minlength=len(self._sources)
        )

    def best_file(
        self, question: str, max_tokens: float = math.inf
    ) -> tuple[str | None, float]:
        """The file of at most `max_tokens` tokens covering most of the question (in any of
        its chunks), and how much.

        What the fallback answer reads when no passage clears the bar; (None, 0.0) when no
        question term is known in such a file.
        """
        concepts = self._concepts(question)
        weights = self.concept_weights(concepts)
        return coverage.file_coverage(
            self._tfidf.by_column, self._source_of, self._sources, concepts, weights,
            self.params, eligible=self._source_tokens <= max_tokens,
        )

    def _diverse_positions(self, ranked: np.ndarray, k: int) -> list[int]:
        """Positions in `ranked` of the hits to return, near-duplicates of better hits skipped.

        Similarities are computed for a short prefix first and the prefix widened only when
        duplicates used it up, so the usual query compares a dozen chunks, not the whole
        ranking.
        """
        threshold = self.params.duplicate_similarity
        if threshold is None:
            return list(range(min(k, len(ranked))))
        size = 4 * k
        while True:
            prefix = ranked[:size]
            similarities = self._tfidf.similarities(self._matrix.counts.take_rows(prefix))
            # A copy cut differently (another format's chunk of the same text) too.
            copies = dedup.repeats([self.chunks.texts[int(row)] for row in prefix])
            similarities[np.flatnonzero(copies)] = 1.0
            chosen = drop_near_duplicates(similarities, k, threshold)
            if len(chosen) == k or size >= len(ranked):
                return chosen
            size *= 4


def covers(
    coverage: float, similarity: float | None, bar: float, params: RetrievalParams
) -> bool:
    """Whether passages with this concept `coverage` of the question answer it.

    Without a dense similarity, the coverage bar alone decides. With one, passages far
    from the question in meaning (`dense_refuse_below`) are refused whatever words they
    share with it, and passages very close in meaning (`dense_accept_above`) are accepted
    under the bar, down to `dense_accept_coverage` (the question's words were paraphrased).
    """
    if similarity is None:
        return coverage >= bar
    if similarity < params.dense_refuse_below:
        return False
    if similarity >= params.dense_accept_above and coverage >= params.dense_accept_coverage:
        return True
    return coverage >= bar


def ranking(
    method: str, tfidf: TfidfScorer, bm25: Bm25Scorer, term_ids: np.ndarray,
    term_counts: np.ndarray, tiebreak: np.ndarray, params: RetrievalParams, k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """`SearchIndex.rank` over fitted scorers (the question's known terms as column ids):
    also how a shared store ranks the rows of a question's postings, to the same bits."""
    cosine = tfidf.scores(term_ids, term_counts)
    candidates = np.flatnonzero(cosine > 0)
    depth = max(params.rank_depth, 4 * k)
    lexical = cosine if method == "tfidf" else bm25.scores(term_ids, term_counts)
    if method != "hybrid":
        chosen = top(candidates, lexical, tiebreak, depth)
        return chosen, lexical[chosen]
    return reciprocal_rank_fusion(
        [top(candidates, cosine, tiebreak, depth), top(candidates, lexical, tiebreak, depth)],
        tiebreak,
        k=params.rrf_k,
        weights=params.hybrid_weights,
    )
