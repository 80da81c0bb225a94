"""The retrieval verdict: answer from passages, from one whole file, or say "not covered".

Why three outcomes: a question the top passages cover is answered from them; one that no
passage covers well but one file does (its parts spread over sections that rank apart)
is answered from that whole file; one that nothing covers (its subject appears nowhere in
the docs) is refused without calling the model, so the model cannot invent an answer.
"Covers" is the concept coverage of `docai.retrieval.coverage`, compared with calibrated bars.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.answer.prompt import prompt_budget
from docai.records import Hit

if TYPE_CHECKING:
    from docai.retrieval.dense import DenseRanking
    from docai.retrieval.search_index import SearchIndex
    from docai.settings import Settings

# How many dense candidates join the fusion (the lexical side uses the index's own depth).
DENSE_DEPTH = 100

# Minimum share of the question one file must cover (in any of its chunks) to answer from
# it when no passage clears the bar; above the passage bar (`index.DEFAULT_MIN_RELEVANCE`),
# so one file must cover more than the passages would have to. Calibrated by
# scripts/eval.py: 0.9 wrongly refused 6 and 7 covered questions of about 50 on the blind
# Black and Hatch sets; 0.7 refuses 4 and 5 (20 of 585 on twelve sets, was 32) and lets 5
# more of 148 uncovered ones through (86 refused, was 91).
DEFAULT_MIN_FILE_COVERAGE = 0.7


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


def search(
    index: SearchIndex,
    question: str,
    k: int,
    min_score: float | None = None,
    dense: DenseRanking | None = None,
) -> list[Hit]:
    """The top passages, with the optional dense ranking fused in (what `docai search` shows)."""
    dense_rows = dense.rows(question, DENSE_DEPTH) if dense is not None else None
    return index.search(question, k, min_score, dense_rows=dense_rows)


def retrieve(
    index: SearchIndex,
    question: str,
    k: int,
    min_score: float | None = None,
    min_file_coverage: float = DEFAULT_MIN_FILE_COVERAGE,
    dense: DenseRanking | None = None,
    max_file_tokens: float = math.inf,
) -> Verdict:
    """Decide how to answer `question` from `index`, with up to `k` passages.

    `min_score` (the user's --min-score) overrides the passage bar only: raising it asks
    for closer passages, and a question one file covers is still answered from that file.
    Only a file of at most `max_file_tokens` tokens (what the prompt can hold) can be the
    fallback: a long file, cut to fit, would mostly not be read, and long files (change
    logs, references) mention nearly everything, so "it covers the question" says little.
    """
    hits = search(index, question, k, min_score, dense)
    if hits:
        return Passages(tuple(hits))
    source, coverage = index.best_file(question, max_file_tokens)
    if source is not None and coverage >= min_file_coverage:
        return Fallback(source)
    return NotCovered()


def retrieve_as_configured(
    index: SearchIndex, question: str, settings: Settings, dense: DenseRanking | None = None
) -> Verdict:
    """`retrieve` as `docai ask` and `docai eval` run it: the user's k and bar, and a
    fallback file no longer than the prompt of `settings.num_ctx` can hold."""
    return retrieve(
        index, question, settings.top_k, settings.min_score,
        dense=dense, max_file_tokens=prompt_budget(settings.num_ctx),
    )
