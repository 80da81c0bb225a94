"""The retrieval verdict: answer from passages, from one whole file, or say "not covered".

Why three outcomes: a question the top passages cover is answered from them; one that no
passage covers well but one file does (its parts spread over sections that rank apart)
is answered from that whole file; one that nothing covers (its subject appears nowhere in
the docs) is refused without calling the model, so the model cannot invent an answer.
"Covers" is the concept coverage of `docai.retrieval.coverage`, compared with the bars of
the index's `RetrievalParams`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.records import Hit

if TYPE_CHECKING:
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
    in a conversation (`docai.answer.followup`) is ranked with its own words counting twice,
    and embedded and judged with the questions before it."""

    ranked: str  # what the lexical ranking reads
    meaning: str  # what the dense re-ranking embeds
    covered: str  # what the coverage bars judge

    @classmethod
    def of(cls, question: str) -> Query:
        return cls(question, question, question)


def search(
    index: SearchIndex,
    question: str | Query,
    k: int,
    min_coverage: float | None = None,
    dense: DenseRanking | None = None,
) -> list[Hit]:
    """The top passages, re-ranked by the optional dense ranking (what `docai search` shows).

    With `dense`, the question's lexical candidates are embedded first when their vectors
    are missing, so the result never depends on how far a background pass got."""
    query = question if isinstance(question, Query) else Query.of(question)
    ranking = index.rank(query.ranked, k)
    if ranking is None:
        return []
    ranked, scores = ranking
    similarity = None
    if dense is not None:
        reranked = dense.rerank(query.meaning, ranked, scores)
        ranked, scores, similarity = reranked.ranked, reranked.scores, reranked.similarity
    return index.top_hits(query.covered, ranked, scores, k, min_coverage, similarity)


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
    hits = search(index, query, k, min_coverage, dense)
    if hits:
        return Passages(tuple(hits))
    source, coverage = index.best_file(query.covered, max_file_tokens)
    if source is not None and coverage >= index.params.min_file_coverage:
        return Fallback(source)
    return NotCovered()

