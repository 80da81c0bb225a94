"""Whether a lower-case word belongs to a language: how a lower-case name is told apart
from a word.

Why: a question naming something the docs never mention is not covered, and a name written
in lower case ("como conecto no kubernetes?", "pagar com stripe") looks like any other word.
A word the collection never contains, that the glossary cannot render and that the
question's own language does not have, is a name (a product, a service, a tool): the
coverage bar then weighs it as one (`retrieval.coverage`). "desligo", a Portuguese word the
glossary lacks, stays an everyday word.

The vocabularies are dictionary forms (`data/vocabulary_pt.txt`, `vocabulary_en.txt`,
generated from simplemma's MIT-licensed lemma lists by scripts/make_vocabularies.py); an
inflected form is found through the forms `inflection` derives (plural -> singular,
conjugated -> infinitive; English suffixes). Each list is read on the first word asked
about (tens of milliseconds), and only words the collection lacks are asked about.
"""

from __future__ import annotations

import functools

from docai.text import wordlists
from docai.text.inflection import english_base_forms, infinitives, singulars
from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.tokenise import fold_marks


def known_word(word: str, languages: tuple[str, ...]) -> bool:
    """Whether `word` (lower case, accents or not) is a word of any of `languages`
    (`language.ENGLISH`, `PORTUGUESE`), in its dictionary form or an inflection of it."""
    folded = fold_marks(word).casefold()
    return any(_known(folded, language) for language in languages)


@functools.lru_cache(maxsize=4096)
def _known(word: str, language: str) -> bool:
    if language == PORTUGUESE:
        forms: tuple[str, ...] = (word, *singulars(word), *infinitives(word))
    else:
        forms = tuple(english_base_forms(word))
    vocabulary = _vocabulary(language)
    return any(form in vocabulary for form in forms)


@functools.cache
def _vocabulary(language: str) -> frozenset[str]:
    source = {PORTUGUESE: wordlists.PORTUGUESE_VOCABULARY,
              ENGLISH: wordlists.ENGLISH_VOCABULARY}[language]
    return frozenset(wordlists.entries(source))
