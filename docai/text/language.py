"""Which language a text is in, English or Portuguese, from the stop words it uses.

Why stop words: every passage and question has them, each language has its own, and they
are already picked out while tokenising. Only words one language alone uses count
(`stopwords.PORTUGUESE_ONLY`, `ENGLISH_ONLY`), and only folded ones, so a passage typed
without accents is guessed the same as with them.
"""

from __future__ import annotations

from collections.abc import Iterable

from docai.text.stopwords import ENGLISH_ONLY, PORTUGUESE_ONLY

# Also the names Snowball's stemmers go by.
ENGLISH = "english"
PORTUGUESE = "portuguese"


def _votes(stop_words: Iterable[str]) -> tuple[int, int]:
    """(Portuguese, English): how many stop words only that language uses."""
    portuguese = english = 0
    for word in stop_words:
        portuguese += word in PORTUGUESE_ONLY
        english += word in ENGLISH_ONLY
    return portuguese, english


def guess_language(stop_words: Iterable[str]) -> str:
    """The language whose own stop words the text uses more; English wins ties, since
    code-only passages have no stop words at all."""
    portuguese, english = _votes(stop_words)
    return PORTUGUESE if portuguese > english else ENGLISH


def surely_english(stop_words: Iterable[str]) -> bool:
    """Whether English-only stop words outnumber Portuguese-only ones (a tie says nothing)."""
    portuguese, english = _votes(stop_words)
    return english > portuguese
