"""The retrieval verdict: answer from passages, from one whole file, or say "not covered".

Why three outcomes: a question the top passages cover is answered from them; one that no
passage covers well but one file does (its parts spread over sections that rank apart)
is answered from that whole file; one that nothing covers (its subject appears nowhere in
the docs) is refused without calling the model, so the model cannot invent an answer.
"Covers" is the concept coverage of `docai.retrieval.coverage`, compared with the bars of
the index's `RetrievalParams`.

A question is ranked once (`rank` -> `Candidates`), and the verdict judges those candidates
(`judge`): a reading that may be judged on more than one text (a follow-up, on its thread
and then on its own words: `docai.answer.reading`) never ranks again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.records import Hit
from docai.retrieval.crosslang import Bridge, bridge, fuse
from docai.text.language import ENGLISH

if TYPE_CHECKING:
    import numpy as np

    from docai.retrieval.dense import DenseRanking
    from docai.retrieval.search_index import SearchIndex


@dataclass(frozen=True, slots=True)
class Passages:
    """The top passages clear the bar: answer from them, best first."""

    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class Fallback:
    """No passage clears the bar but this file does: answer from the whole file."""

    source: str


@dataclass(frozen=True, slots=True)
class NotCovered:
    """The docs do not cover the question: say so, without calling the model."""


Verdict = Passages | Fallback | NotCovered


@dataclass(frozen=True, slots=True)
class Query:
    """What each step of retrieval reads. A question asked alone is all three; a follow-up
    in a conversation (`docai.answer.reading`) is ranked with its own words counting twice,
    and embedded and judged with the questions before it."""

    ranked: str  # what the lexical ranking reads
    meaning: str  # what the dense re-ranking embeds
    covered: str  # what the coverage bars judge

    @classmethod
    def of(cls, question: str) -> Query:
        return cls(question, question, question)


@dataclass(frozen=True, slots=True)
class Candidates:
    """One retrieval pass: a query's chunks ranked (and re-ranked by the dense ranking), as
    deep as the index ranks. Judging them (`passages`, `judge`) ranks nothing again, so
    one pass can be judged on several texts (a follow-up on its thread, then on its own
    words) and every reading answers from the same ranking."""

    ranked: np.ndarray  # chunk ids, best first
    scores: np.ndarray
    similarity: float | None  # the dense similarity of the query's meaning to the top
    # Set when the query is in another language than its passages (`crosslang`).
    crossing: Bridge | None = None


def rank(
    index: SearchIndex, query: Query, k: int, dense: DenseRanking | None = None
) -> Candidates | None:
    """The one retrieval pass for `query`; None when the index knows none of its terms.

    With `dense`, the query's lexical candidates are embedded first when their vectors are
    missing, so the result never depends on how far a background pass got.

    A query in another language than most of the collection is also ranked with its words
    rendered in the collection's beside its own (`crosslang`), the two rankings fused with
    each passage judged in its own language, and the dense ranking reads both.
    """
    ranking = index.rank(query.ranked, k)
    if ranking is None:
        return None
    ranked, scores = ranking
    crossing = bridge(query.ranked, index.languages)
    joined = None if crossing is None else index.rank(crossing.joined(query.ranked), k)
    if crossing is not None and joined is not None:
        ranked, scores = fuse(ranked, joined[0], index.chunks.texts, crossing,
                              index.params.rrf_k)
    if dense is None:
        return Candidates(ranked, scores, None, crossing)
    meaning = query.meaning if crossing is None else crossing.joined(query.meaning)
    reranked = dense.rerank(meaning, ranked, scores, crossing=crossing is not None)
    return Candidates(reranked.ranked, reranked.scores, reranked.similarity, crossing)


def passages(
    index: SearchIndex,
    candidates: Candidates | None,
    covered: str,
    k: int,
    min_coverage: float | None = None,
) -> list[Hit]:
    """The top `k` of `candidates` (near-duplicates skipped), or [] when they cover less of
    `covered` than the passage bar.

    An English query about Portuguese docs is covered when its own words or their rendering
    in the passages' language clear the bar (`_rendered`)."""
    if candidates is None:
        return []
    hits = index.top_hits(covered, candidates.ranked, candidates.scores, k, min_coverage,
                          candidates.similarity)
    rendered = _rendered(index, candidates, covered)
    if hits or rendered is None:
        return hits
    return index.top_hits(rendered, candidates.ranked, candidates.scores, k, min_coverage,
                          candidates.similarity)


def _rendered(index: SearchIndex, candidates: Candidates | None, covered: str) -> str | None:
    """`covered` in the passages' language, for an English question about Portuguese docs
    whose names and rare words the collection holds (a name it lacks stays a name, whichever
    words surround it). A Portuguese question's concepts already hold their English renderings (the
    glossary), so its rendering only judged it more leniently: two uncovered Click questions
    were answered."""
    crossing = None if candidates is None else candidates.crossing
    if crossing is None or crossing.question_language != ENGLISH or index.specific_unknown(covered):
        return None
    return crossing.render(covered)


def judge(
    index: SearchIndex,
    candidates: Candidates | None,
    covered: str,
    k: int,
    min_coverage: float | None = None,
    max_file_tokens: float = math.inf,
) -> Verdict:
    """The verdict on `candidates` for the text `covered`: their top passages, else the one
    file covering it (`retrieve` says which), else not covered."""
    hits = passages(index, candidates, covered, k, min_coverage)
    if hits:
        return Passages(tuple(hits))
    rendered = _rendered(index, candidates, covered)
    for reading in [covered] if rendered is None else [covered, rendered]:
        source, coverage = index.best_file(reading, max_file_tokens)
        if source is not None and coverage >= index.params.min_file_coverage:
            return Fallback(source)
    return NotCovered()


def search(
    index: SearchIndex,
    question: str | Query,
    k: int,
    min_coverage: float | None = None,
    dense: DenseRanking | None = None,
) -> list[Hit]:
    """The top passages, re-ranked by the optional dense ranking (what `docai search` shows)."""
    query = question if isinstance(question, Query) else Query.of(question)
    return passages(index, rank(index, query, k, dense), query.covered, k, min_coverage)


def retrieve(
    index: SearchIndex,
    question: str | Query,
    k: int,
    min_coverage: float | None = None,
    dense: DenseRanking | None = None,
    max_file_tokens: float = math.inf,
) -> Verdict:
    """Decide how to answer `question` from `index`, with up to `k` passages.

    `min_coverage` (the user's --min-coverage) overrides the passage bar only: raising it asks
    for closer passages, and a question one file covers (the file bar, `min_file_coverage`
    of the index's params, which is above the passage bar) is still answered from that file.
    Only a file of at most `max_file_tokens` tokens (what the prompt can hold) can be the
    fallback: a long file, cut to fit, would mostly not be read, and long files (change
    logs, references) mention nearly everything, so "it covers the question" says little.
    """
    query = question if isinstance(question, Query) else Query.of(question)
    return judge(index, rank(index, query, k, dense), query.covered, k, min_coverage,
                 max_file_tokens)
