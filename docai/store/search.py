"""A collection of the shared store, searched as a local index is.

Per question, the database does what grows with the collection: it finds the chunks in
the top of BM25 or of TF-IDF (over its inverted index) and returns them with their terms and
the collection's statistics. docai then ranks, deduplicates and judges those few hundred
chunks with its own `SearchIndex` (`StoreCandidates`, given the collection's statistics), so
a question gets the same passages, scores and verdict as from the local index. A client
holds one question's candidates at a time: its memory does not grow with the collection.

Each question reads one snapshot (a READ ONLY, REPEATABLE READ transaction), so a reindex
running meanwhile shows it the old or the new version of each file, never a mix. A
connection that drops raises `StoreUnavailable` once; the next question reconnects.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from docai import messages
from docai.index.scoring import lucene_idf, smooth_idf_of
from docai.records import Chunk, Hit
from docai.redaction import redact_url
from docai.retrieval import crosslang
from docai.retrieval.params import DEFAULT_METHOD, DEFAULT_PARAMS, RetrievalParams
from docai.store import languages, packs, queries, schema
from docai.store.candidates import StoreCandidates, average_length, lookup_terms
from docai.store.client import ClientConnection
from docai.store.dense_fusion import DenseRead
from docai.store.errors import StoreDamaged, StoreError
from docai.store.store_chunks import StoreChunks
from docai.store.term_cache import TermCache
from docai.store.untrusted import clean_text, local_file
from docai.text.analysis import ANALYZER_VERSION, Analyzer, default_analyzer

# Candidates fetched past the ranking depth: the database's float sums may order near-ties
# differently from numpy's, and the exact order is decided here.
DEPTH_MARGIN = 20


class StoreIndex(ClientConnection):
    """What `verdict` and `Answerer` need of an index (`rank`, `top_hits`, `best_file`,
    `params`, `fingerprint`, `chunks.first_of`, `file_text`), over one collection."""

    def __init__(
        self,
        url: str,
        collection: str,
        method: str = DEFAULT_METHOD,
        *,
        params: RetrievalParams = DEFAULT_PARAMS,
        docs_dir: Path | None = None,
        analyzer: Analyzer | None = None,
    ) -> None:
        super().__init__(url)
        self.collection = collection
        self.method = method
        self.params = params
        self._docs_dir = docs_dir
        self._analyzer = analyzer or default_analyzer()
        self._last: tuple[str, StoreCandidates] | None = None
        self._terms_read = TermCache()
        self._generation = self._open()
        self.chunks = StoreChunks(self)
        # Set by a dense ranking (`StoreDense.read`): the window vectors a question reads
        # with its candidates (given its lexical ranking's pack rows; and whether to fuse).
        self.dense_read: Callable[[psycopg.Connection[Any], str, np.ndarray, bool],
                                  DenseRead | None] | None = None

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    def __len__(self) -> int:
        return self._generation.chunks

    @property
    def generation_id(self) -> int:
        return self._generation.id

    @property
    def fingerprint(self) -> str:
        """Changes whenever the collection does (a new generation, or any file change)."""
        g = self._generation
        return f"store\0{self.collection}\0{g.id}\0{g.revision}\0{self.method}"

    @property
    def languages(self) -> Mapping[str, float]:
        """The collection's languages, sampled by the indexer as the local index samples
        them (`docai.store.languages`); {} for a generation without them (not bridged)."""
        return languages.read(self._generation.languages)

    # --- the interface of SearchIndex -------------------------------------------------------
    def rank(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """A bridged question's joined rendering (`crosslang`), ranked right after the
        question, is ranked over the question's candidates with its own appended: both
        rankings then number the same rows, as the local index's do (`verdict.rank` fuses
        them), and the candidates stay the question's for judging it."""
        beside = self._last if self._last is not None and self._joins(self._last[0],
                                                                       question) else None
        candidates = self.candidates(question, k, beside=beside)
        ranking = candidates.rank(question, k)
        if beside is not None:  # an indexer moved it on: ranked by its own words alone
            if ranking is None or candidates._generation != beside[1]._generation:
                self._last = beside
                return None
            self._last = (beside[0], candidates)
        return ranking

    def _joins(self, ranked: str, question: str) -> bool:
        """Whether `question` is `ranked` joined by its rendering (a bridged question)."""
        crossing = crosslang.bridge(ranked, self.languages)
        return crossing is not None and crossing.joined(ranked) == question

    def specific_unknown(self, question: str) -> bool:
        return self._judging(question).specific_unknown(question)

    def top_hits(
        self, question: str, ranked: np.ndarray, scores: np.ndarray, k: int,
        min_coverage: float | None = None, similarity: float | None = None,
    ) -> list[Hit]:
        return self._judging(question).top_hits(
            question, ranked, scores, k, min_coverage, similarity)

    def search(self, question: str, k: int, min_coverage: float | None = None) -> list[Hit]:
        return self.candidates(question, k).search(question, k, min_coverage)

    def best_file(self, question: str, max_tokens: float = math.inf) -> tuple[str | None, float]:
        return self._current(question).best_file(question, max_tokens)

    def passage_bar(self, min_coverage: float | None) -> float:
        return self.params.min_coverage if min_coverage is None else min_coverage

    def file_text(self, source: str) -> str | None:
        """None when the docs folder holds the file (read as the local index would);
        otherwise its chunks' texts, for a client without the docs. A name from the
        database that is not a safe relative path is never looked for on the local disk."""
        if self._docs_dir is not None and local_file(self._docs_dir, source) is not None:
            return None
        with self.reading() as conn:
            texts = queries.file_chunk_texts(conn, self._generation.id, source)
        return "\n\n".join(clean_text(text) for text in texts) if texts else None

    # --- per question -----------------------------------------------------------------------
    def candidates(
        self, question: str, k: int, *, beside: tuple[str, StoreCandidates] | None = None
    ) -> StoreCandidates:
        """The question's candidates, as a `SearchIndex` over them with the collection's
        statistics (kept for the steps that follow the ranking).

        Two or three statements outside a transaction, each in its own snapshot and each
        checking that the generation is still at the revision the first one saw: one round
        trip each, no BEGIN and COMMIT. When an indexer changed the collection in between,
        or its packs are not current, the question is read again in one READ ONLY snapshot.
        `beside`: an earlier question and its candidates, which these begin with (`rank`)."""
        try:
            with self.statements() as conn:
                candidates = self._read_candidates(conn, question, k, False, beside)
        except queries.RevisionMoved:
            candidates = None
        if candidates is None:
            with self.reading() as conn:
                candidates = self._read_candidates(conn, question, k, True, beside)
        assert candidates is not None  # in one snapshot, the generation cannot move
        self._last = (question, candidates)
        return candidates

    def _read_candidates(
        self, conn: psycopg.Connection[Any], question: str, k: int, snapshot: bool,
        beside: tuple[str, StoreCandidates] | None,
    ) -> StoreCandidates | None:
        counts = Counter(self._analyzer.query_terms(question))
        terms = set(self._terms(question))
        if beside is not None:  # the candidates judge the earlier question: its terms too
            terms.update(self._terms(beside[0]))
        found, known, packed = queries.generation_and_packs(
            conn, self.collection, sorted(terms), sorted(counts))
        generation = self._checked(conn, found)
        first = beside[1] if beside is not None and beside[1]._generation == generation \
            else None
        if generation.packed:
            return self._from_packs(conn, generation, question, k, counts, known, packed,
                                    first)
        if not snapshot:
            return None
        return self._through_sql(conn, generation, question, k, known, first)

    def _from_packs(
        self, conn: psycopg.Connection[Any], generation: queries.Generation, question: str,
        k: int, counts: Counter[str], known: dict[str, tuple[int, int]],
        packed: dict[str, tuple[int, bytes]], first: StoreCandidates | None,
    ) -> StoreCandidates:
        """The whole collection ranked from the question terms' packs, as the local index
        ranks it; the candidates are the ranking's chunks, in its order (after `first`'s)."""
        try:
            ranking = packs.rank(self.method, counts, packed, generation.chunks,
                                 average_length(generation), self.params, k)
        except packs.DamagedPack:
            raise self._damaged() from None
        if ranking is None:
            candidates = self._assemble(conn, generation, queries.candidate_chunks(conn, []),
                                        known)
            candidates._ranked = ((question, k), None)
            return candidates
        # Only the chunks a question can return are read: the dense re-ranking's candidates,
        # the passages with near-duplicates skipped four times over (a lower chunk can only
        # follow them) and those history passages may fall below (`history_depth`). The
        # local ranking runs deeper; its tail never reaches the top k.
        params = self.params
        reach = max(params.dense_candidates, 16 * k, params.history_depth)
        depth = min(max(params.rank_depth, 4 * k), reach)
        rows, scores = ranking[0][:depth], ranking[1][:depth]
        earlier = [] if first is None or first._pack_rows is None else first._pack_rows
        wanted = list(dict.fromkeys(earlier + rows.tolist()))
        # A dense question over a collection ranked whole: the chunks nearest it and the
        # window vectors it is ranked by, in a statement of their own; then, unless it
        # is a bridged question's joined rendering (whose rankings the verdict fuses
        # first), the final ranking is fused here and only its top is read.
        dense = (self.dense_read(conn, question, ranking[0] if first is None else
                                 np.array(wanted, dtype=np.int64), first is None)
                 if self.dense_read is not None
                 and crosslang.bridge(question, self.languages) is None else None)
        if dense is not None and dense.fused is not None:
            wanted = dense.fused.rows[:reach].tolist()
        elif dense is not None:
            wanted = list(dict.fromkeys(wanted + dense.read.pack_rows.tolist()))
        candidates = self._read_rows(conn, generation, wanted, known)
        place = {row: at for at, row in enumerate(wanted)}
        candidates._pack_rows = wanted
        candidates._lexical = ranking[0]
        kept = np.array([row in place for row in rows.tolist()], dtype=bool)
        candidates._ranked = ((question, k), (
            np.array([place[row] for row in rows[kept].tolist()], dtype=np.int64),
            scores[kept]))
        candidates.dense_read = dense
        return candidates

    def _read_rows(
        self, conn: psycopg.Connection[Any], generation: queries.Generation,
        wanted: list[int], known: dict[str, tuple[int, int]],
    ) -> StoreCandidates:
        """The chunks at the pack rows `wanted` (in that order) and, in the same round trip,
        those of their terms the client does not hold (a term's text and frequency are the
        same for every chunk of this version), as candidates."""
        cache = self._terms_read.for_version(generation.id, generation.revision)
        try:
            read, unheld = queries.chunks_and_terms(conn, generation, wanted, cache.held())
        except KeyError:  # a row the packs name, which no chunk has
            raise self._damaged() from None
        # The held terms are taken before the new ones are added (which may empty the cache).
        terms, _ = cache.lookup(np.unique(read[2][:, 1]).tolist())
        terms.update(unheld)
        cache.add(unheld)
        return self._assemble(conn, generation, read, known, terms)

    def _damaged(self) -> StoreDamaged:
        return StoreDamaged(messages.STORE_DAMAGED.format(
            collection=self.collection, url=redact_url(self.url)))

    def _through_sql(
        self, conn: psycopg.Connection[Any], generation: queries.Generation, question: str,
        k: int, known: dict[str, tuple[int, int]], first: StoreCandidates | None,
    ) -> StoreCandidates:
        """While an indexer is changing files (the packs are not this revision's): the top
        of BM25 and of TF-IDF found by the database (after `first`'s chunks), ranked again
        here over their chunks."""
        params = self.params
        depth = max(params.rank_depth, 4 * max(k, 1)) + DEPTH_MARGIN
        counts = Counter(t for t in self._analyzer.query_terms(question) if t in known)
        ids: list[int] = []
        if counts:
            rows, average = generation.chunks, average_length(generation)
            frequency = np.array([known[t][1] for t in counts], dtype=np.int64)
            query = np.array(list(counts.values()), dtype=np.float64)
            ids = queries.candidate_ids(
                conn, generation.id, [known[t][0] for t in counts],
                (query * lucene_idf(frequency, rows)).tolist(),
                ((1.0 + np.log(query)) * smooth_idf_of(frequency, rows)).tolist(),
                k1=params.bm25_k1, b=params.bm25_b, average=average, depth=depth)
        if first is not None:
            ids = list(dict.fromkeys(first._ids.tolist() + ids))
        return self._assemble(conn, generation, queries.candidate_chunks(conn, ids), known)

    def _assemble(
        self, conn: psycopg.Connection[Any], generation: queries.Generation,
        chunks_read: tuple[list[int], dict[int, Chunk], np.ndarray],
        known: dict[str, tuple[int, int]], held: dict[int, tuple[str, int]] | None = None,
    ) -> StoreCandidates:
        """The chunks read (ids in ranking order, chunks by id, their term entries) as a
        `SearchIndex` with the collection's statistics. `held`: the terms of those chunks
        already at hand; otherwise the ones the client lacks are read."""
        ids, chunks, entries = chunks_read
        terms = held
        if terms is None:
            cache = self._terms_read.for_version(generation.id, generation.revision)
            terms, missing = cache.lookup(np.unique(entries[:, 1]).tolist())
            read = queries.terms_by_id(conn, generation, missing)
            cache.add(read)
            terms.update(read)
        postings = (entries, terms)
        return StoreCandidates.of(self, [chunks[i] for i in ids], ids, postings,
                                  {t: df for t, (_, df) in known.items()}, generation)

    def _judging(self, question: str) -> StoreCandidates:
        """The candidates of the last ranking, able to judge `question` (a follow-up is
        ranked with earlier questions but judged on its own words: their statistics are
        added, the rows stay the ranking's)."""
        if self._last is None:
            return self.candidates(question, 1)
        ranked_question, last = self._last
        if ranked_question == question:
            return last
        terms = sorted(set(self._terms(ranked_question)) | set(self._terms(question)))
        try:
            with self.reading() as conn:
                known = queries.document_frequencies(conn, last._generation.id, terms)
                read = queries.candidate_chunks(conn, last._ids.tolist())
                judging = self._assemble(conn, last._generation, read, known)
        except queries.RevisionMoved:  # the collection changed since the ranking: rank again
            return self.candidates(question, 1)
        self._last = (question, judging)
        return judging

    def widened(self, ids: Sequence[int]) -> StoreCandidates | None:
        """The last question's candidates with the chunks of `ids` they lack appended (the
        rows of its ranking stay theirs), kept as the last candidates; None before any."""
        if self._last is None:
            return None
        ranked_question, last = self._last
        present = set(last._ids.tolist())
        extra = [chunk_id for chunk_id in dict.fromkeys(ids) if chunk_id not in present]
        if not extra:
            return last
        try:
            with self.reading() as conn:
                known = queries.document_frequencies(conn, last._generation.id,
                                                     self._terms(ranked_question))
                read = queries.candidate_chunks(conn, last._ids.tolist() + extra)
                wider = self._assemble(conn, last._generation, read, known)
        except queries.RevisionMoved:  # the collection changed since the ranking
            return None
        wider._ranked = last._ranked
        self._last = (ranked_question, wider)
        return wider

    def last_candidates(self) -> StoreCandidates | None:
        """The candidates of the last question ranked (what the dense re-ranking reads)."""
        return self._last[1] if self._last is not None else None

    def _current(self, question: str) -> StoreCandidates:
        if self._last is not None and self._last[0] == question:
            return self._last[1]
        return self.candidates(question, 1)

    def _terms(self, question: str) -> list[str]:
        return lookup_terms(self._analyzer, question)

    def _open(self) -> queries.Generation:
        with self.reading() as conn:
            schema.check(conn, self.url)
            return self._refresh(conn)

    def _refresh(self, conn: psycopg.Connection[Any]) -> queries.Generation:
        return self._checked(conn, queries.current_generation(conn, self.collection))

    def _checked(self, conn: psycopg.Connection[Any],
                 generation: queries.Generation | None) -> queries.Generation:
        """The collection's generation, read now: a StoreError when there is none or an
        analyser other than this docai's wrote it."""
        if generation is None:
            known = ", ".join(repr(n) for n in queries.collection_names(conn))
            raise StoreError(messages.STORE_NO_COLLECTION.format(
                name=self.collection, url=redact_url(self.url),
                known=known or messages.STORE_NO_COLLECTIONS))
        if generation.analyzer_version != ANALYZER_VERSION:
            raise StoreError(messages.STORE_OTHER_ANALYZER.format(name=self.collection))
        self._generation = generation
        return generation
