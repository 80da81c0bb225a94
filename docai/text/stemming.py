"""Words -> stems, one stemmer per language (Snowball, through PyStemmer).

Why: stemming must map the same word to the same term in the docs and in the question, or
nothing matches. Snowball's Portuguese rules need the accents that folding removed
("-ção"), so the common accented suffixes are restored before stemming, from the folded
form alone: typed with or without accents, a word gets the same stem.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import Stemmer

from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.tokenise import fold_marks

Stem = Callable[[str], str]

# Words each stemmer remembers: a corpus's vocabulary fits, so each word is stemmed once.
STEM_CACHE_SIZE = 200_000

# Folded Portuguese suffixes that Snowball only recognises with their accents.
_PT_SUFFIXES = {
    "cao": "ção", "coes": "ções", "avel": "ável", "aveis": "áveis", "ivel": "ível",
    "iveis": "íveis", "ancia": "ância", "ancias": "âncias", "encia": "ência",
    "encias": "ências",
}
_PT_SUFFIX = re.compile("(" + "|".join(sorted(_PT_SUFFIXES, key=len, reverse=True)) + ")$")


def snowball_stemmers() -> dict[str, Stem]:
    """A fresh stemmer per language, each with its own bounded cache (never shared, so two
    analyzers hold no common mutable state)."""
    english = Stemmer.Stemmer(ENGLISH, 0)
    portuguese = Stemmer.Stemmer(PORTUGUESE, 0)
    cache = functools.lru_cache(maxsize=STEM_CACHE_SIZE)
    return {
        ENGLISH: cache(english.stemWord),
        PORTUGUESE: cache(functools.partial(_stem_portuguese, portuguese)),
    }


def unstemmed() -> dict[str, Stem]:
    """Stemmers that keep every word as it is."""
    return {ENGLISH: _no_stem, PORTUGUESE: _no_stem}


def _stem_portuguese(stemmer: Stemmer.Stemmer, word: str) -> str:
    # Snowball stems "-ão" and its plural "-ões" apart ("opção" -> opca, "opções" -> opco;
    # "versão" / "versões"): the plural is rewritten to the singular first.
    if len(word) > 4 and word.endswith("oes"):
        word = word[:-3] + "ao"
    accented = _PT_SUFFIX.sub(lambda match: _PT_SUFFIXES[match.group(1)], word)
    stem = stemmer.stemWord(accented)
    return stem if stem.isascii() else fold_marks(stem)


def _no_stem(word: str) -> str:
    return word
