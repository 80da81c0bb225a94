"""Whether a lower-case word belongs to a language: how a lower-case name is told apart
from a word.

Why: a question naming something the docs never mention is not covered, and a name written
in lower case ("como conecto no kubernetes?", "pagar com stripe") looks like any other word.
A word the collection never contains, that the glossary cannot render and that the
question's own language does not have, is a name (a product, a service, a tool): the
coverage bar then weighs it as one (`retrieval.coverage`). "desligo", "dizendo", a
Portuguese word the glossary lacks, stays an everyday word.

The vocabularies are every word form of each language (`data/vocabulary_pt.npy`,
`vocabulary_en.npy`: sorted 32-bit hashes of the folded forms, generated from simplemma's
MIT-licensed dictionaries by scripts/make_vocabularies.py), read on the first word asked
about, in milliseconds; only words the collection lacks are asked about.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from docai.text import wordlists
from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.tokenise import fold_marks


def word_hash(folded: str) -> int:
    """The 32-bit hash a folded word form is stored under (stable across runs)."""
    return int.from_bytes(hashlib.blake2b(folded.encode("utf-8"), digest_size=4).digest(),
                          "big")


def known_word(word: str, languages: tuple[str, ...]) -> bool:
    """Whether `word` (lower case, accents or not) is a word form of any of `languages`
    (`language.ENGLISH`, `PORTUGUESE`)."""
    folded = fold_marks(word).casefold()
    keys = [word_hash(folded)]
    if PORTUGUESE in languages and folded.endswith("mente") and len(folded) > 7:
        keys.append(word_hash(folded[:-5]))  # an adverb the forms lack: "realmente" -> real
    return any(_holds(_vocabulary(language), key)
               for language in languages for key in keys)


def _holds(hashes: np.ndarray, key: int) -> bool:
    position = int(np.searchsorted(hashes, key))
    return position < len(hashes) and int(hashes[position]) == key


@functools.cache
def _vocabulary(language: str) -> np.ndarray:
    source = {PORTUGUESE: wordlists.PORTUGUESE_VOCABULARY,
              ENGLISH: wordlists.ENGLISH_VOCABULARY}[language]
    with source.open("rb") as handle:
        hashes: np.ndarray = np.load(handle, allow_pickle=False)
    return hashes
