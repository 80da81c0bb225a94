"""A question's words rendered in the other language, word by word: what the passages'
language would call them.

Why: a question in Portuguese about English docs (or the reverse) shares few words with its
passages, and the bundled embedding model places it farther from them than its English twin
(on docai's guide, ranked by meaning alone: the right passage in the top 3 for half of the
Portuguese questions, all of the English ones). The same question with its words rendered
("desativo registro conversas" -> "disable log conversation") is ranked by meaning nearly as
its twin, and its rendered words meet the passages' own. The rendering is a bag of words, not
a translation: the embedding model and the term weights need no grammar.

Renderings come from the glossary (`glossary`), read both ways: Portuguese dictionary forms
found through their stem, a singular or an infinitive (`inflection`); English words through
their stem, the first Portuguese word the glossary renders with them. A word without an
entry (a name, an identifier, a cognate) is kept as written: in the other language it is
most often the same word.
"""

from __future__ import annotations

import functools

from docai.text.glossary import PORTUGUESE_TO_ENGLISH
from docai.text.inflection import english_base_forms, infinitives, singulars
from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.stemming import snowball_stemmers
from docai.text.stopwords import QUESTION_SCAFFOLDING, STOP_WORDS
from docai.text.tokenise import tokenise


@functools.cache
def _tables() -> tuple[dict[str, str | None], dict[str, str | None]]:
    """(Portuguese stem -> its first English rendering, English stem -> the first Portuguese
    word rendered by it). One: with two, the second added noise to long questions (mypy's
    Portuguese questions lost two passages from the top 3; the cross-language sets were the
    same but for one Flask question)."""
    stemmers = snowball_stemmers()
    to_english: dict[str, str | None] = {}  # None: a function word ("antes": before)
    to_portuguese: dict[str, str | None] = {}
    for word, renderings in PORTUGUESE_TO_ENGLISH.items():
        english = [w for w in renderings.split() if w not in STOP_WORDS]
        if not english:
            to_english.setdefault(stemmers[PORTUGUESE](word), None)
            continue
        to_english.setdefault(stemmers[PORTUGUESE](word), " ".join(english[:1]))
        for rendering in english:
            to_portuguese.setdefault(stemmers[ENGLISH](rendering), word)
    return to_english, to_portuguese


def render(text: str, target: str) -> str | None:
    """`text`'s words in the `target` language (`language.ENGLISH` or `PORTUGUESE`), stop
    words and question scaffolding left out; None when no word has a rendering (nothing to
    add to the question as written)."""
    stemmers = snowball_stemmers()
    to_english, to_portuguese = _tables()
    table: dict[str, str | None]
    if target == ENGLISH:
        table, stem, forms = to_english, stemmers[PORTUGUESE], _portuguese_forms
    else:
        table, stem, forms = to_portuguese, stemmers[ENGLISH], _english_forms
    words: list[str] = []
    rendered = False
    for token, is_word in tokenise(text).tokens:
        folded = token.casefold()
        if is_word and (folded in STOP_WORDS or folded in QUESTION_SCAFFOLDING):
            continue
        key = next((key for form in (folded, *forms(folded)) if (key := stem(form)) in table),
                   None) if is_word else None
        if key is not None and table[key] is None:
            continue  # a function word, left out as a stop word is
        rendered = rendered or key is not None
        words.append(table[key] or token if key is not None else token)
    return " ".join(words) if rendered else None


def _portuguese_forms(word: str) -> tuple[str, ...]:
    return singulars(word) + infinitives(word)


def _english_forms(word: str) -> tuple[str, ...]:
    return tuple(english_base_forms(word)[1:])
