"""A question's words rendered in the other language, word by word: what the passages'
language would call them.

Why: a question in Portuguese about English docs (or the reverse) shares few words with its
passages, and the bundled embedding model places it farther from them than its English twin
(on docai's guide, ranked by meaning alone: the right passage in the top 3 for half of the
Portuguese questions, all of the English ones). The same question with its words rendered
("desativo registro conversas" -> "disable log conversation") is ranked by meaning nearly as
its twin, and its rendered words meet the passages' own. The rendering is a bag of words, not
a translation: the embedding model and the term weights need no grammar.

Renderings come from the glossary (`glossary`), read both ways: a Portuguese word by its own
entry when it, its singular or its infinitive (`inflection`) is one, else through the stem
of any of them; English words through their stem, the first Portuguese word the glossary
renders with them. The entry first: Snowball gives different words one stem ("variáveis"
and "vários": vari, "conto" and "conta": cont, "registrar" and "registro"), and the first
entry of a stem rendered the others (variables as "multiple", count as "account"). A word
without an entry (a name, an identifier, a cognate) is kept as written: in the other
language it is most often the same word.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from docai.text.glossary import PORTUGUESE_TO_ENGLISH
from docai.text.inflection import english_base_forms, infinitives, singulars
from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.stemming import snowball_stemmers
from docai.text.stopwords import QUESTION_SCAFFOLDING, STOP_WORDS
from docai.text.tokenise import tokenise

# A word the glossary has no rendering for (kept as written); None is a function word's.
_ABSENT = ""


@dataclass(frozen=True, slots=True)
class _Tables:
    """One rendering per word: with two, the second added noise to long questions (mypy's
    Portuguese questions lost two passages from the top 3; the cross-language sets were the
    same but for one Flask question). None: a function word ("antes": before)."""

    entries: dict[str, str | None]  # Portuguese dictionary form -> its first rendering
    to_english: dict[str, str | None]  # Portuguese stem -> its first entry's rendering
    to_portuguese: dict[str, str | None]  # English stem -> the first word rendered by it


@functools.cache
def _tables() -> _Tables:
    stemmers = snowball_stemmers()
    entries: dict[str, str | None] = {}
    to_english: dict[str, str | None] = {}
    to_portuguese: dict[str, str | None] = {}
    for word, renderings in PORTUGUESE_TO_ENGLISH.items():
        english = [w for w in renderings.split() if w not in STOP_WORDS]
        first = " ".join(english[:1]) or None
        entries[word] = first
        to_english.setdefault(stemmers[PORTUGUESE](word), first)
        for rendering in english:
            to_portuguese.setdefault(stemmers[ENGLISH](rendering), word)
    return _Tables(entries, to_english, to_portuguese)


def _rendering(word: str, target: str) -> str | None:
    """The rendering of one folded word in `target`: its entry's, else its stem's; None
    for a function word, `_ABSENT` for a word the glossary lacks."""
    tables = _tables()
    stemmers = snowball_stemmers()
    if target == ENGLISH:
        forms = (word, *singulars(word), *infinitives(word))
        entry = next((form for form in forms if form in tables.entries), None)
        if entry is not None:
            return tables.entries[entry]
        table, stem = tables.to_english, stemmers[PORTUGUESE]
    else:
        forms = (word, *english_base_forms(word)[1:])
        table, stem = tables.to_portuguese, stemmers[ENGLISH]
    return next((table[key] for form in forms if (key := stem(form)) in table), _ABSENT)


def render(text: str, target: str) -> str | None:
    """`text`'s words in the `target` language (`language.ENGLISH` or `PORTUGUESE`), stop
    words and question scaffolding left out; None when no word has a rendering (nothing to
    add to the question as written)."""
    words: list[str] = []
    rendered = False
    for token, is_word in tokenise(text).tokens:
        folded = token.casefold()
        if is_word and (folded in STOP_WORDS or folded in QUESTION_SCAFFOLDING):
            continue
        found = _rendering(folded, target) if is_word else _ABSENT
        if found is None:
            continue  # a function word, left out as a stop word is
        rendered = rendered or found != _ABSENT
        words.append(found or token)
    return " ".join(words) if rendered else None
