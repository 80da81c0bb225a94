"""`-v` after a refusal: the figure behind it, so a person can judge the bar.

The verdict says only "not covered"; this ranks the question once more (words only, the
question alone) and says how much of it the best passages cover against the bar in force.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from docai import messages


class Ranked(Protocol):
    """What the figure needs of an index (a local one or a shared store's)."""

    def rank(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray] | None: ...

    def coverage(self, question: str, rows: np.ndarray) -> float: ...

    def passage_bar(self, min_coverage: float | None) -> float: ...


def refusal_line(index: Ranked, question: str, k: int, min_coverage: float | None) -> str:
    """The coverage of `question` by its best `k` passages, and the bar it missed."""
    bar = index.passage_bar(min_coverage)
    ranking = index.rank(question, k)
    if ranking is None:
        return messages.ANSWER_VERBOSE_NO_TERMS.format(bar=bar)
    rows = ranking[0][:k]
    return messages.ANSWER_VERBOSE_REFUSAL.format(
        k=len(rows), coverage=index.coverage(question, rows), bar=bar)
