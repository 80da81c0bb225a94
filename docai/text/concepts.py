"""A question -> the things it mentions (`Concept`), each with every term that may stand
for it in the docs.

Choices, and why:

* A question is short and often mixes languages ("como uso o caching?"), so each of its
  words gives both its English and its Portuguese stem; the stem the docs do not contain
  is simply unknown to the index and ignored. That also lets a Portuguese question meet
  English docs through cognates ("configuração" and "configuration" both stem to
  `configur`).
* Where Portuguese and English words share no stem ("pasta" / "folder"), a question's
  Portuguese words also bring their usual English renderings (`glossary`), unless the
  question is plainly English. An acronym ("RAM") is never translated, so it is not read
  as a Portuguese word ("ramo").
* Questions also lose the words that wrap them but never name their subject ("is there a
  way", "é possível"; `stopwords.QUESTION_SCAFFOLDING`) and Portuguese words the glossary
  renders only as English stop words ("antes" -> "before"): neither should steer the
  ranking or lower the coverage that decides refusal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from docai.text import wordlists
from docai.text.glossary import ENGLISH_SYNONYMS, PORTUGUESE_TO_ENGLISH
from docai.text.inflection import english_base_forms, infinitives, singulars
from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.stemming import STEM_CACHE_SIZE, Stem
from docai.text.stopwords import (
    QUESTION_SCAFFOLDING,
    QUESTION_SCAFFOLDING_PHRASES,
    STOP_WORDS,
)
from docai.text.tokenise import fold_marks, identifier_terms, tokenise
from docai.text.tokens import get_encoding

# Portuguese stem -> the English stems the glossary renders it with.
Translations = Mapping[str, tuple[str, ...]]
# English stem -> the stems of its synonyms.
Synonyms = Mapping[str, tuple[str, ...]]

_SCAFFOLDING_PHRASE = re.compile(
    r"\b(?:" + "|".join(re.escape(p) for p in QUESTION_SCAFFOLDING_PHRASES) + r")\b", re.IGNORECASE
)
# Abbreviations spelled as tokens: in a question, no subject of their own.
_ABBREVIATION_TOKENS = frozenset({"e.g", "i.e", "p.ex"})


@dataclass(frozen=True, slots=True)
class Concept:
    """One thing a question mentions: the terms that may stand for it in the docs.

    `related` holds English synonyms ("modify" for "change"): they count when deciding
    whether a passage mentions the concept, but do not rank passages (expanding the ranked
    query with them drifted to passages about the synonym on every evaluation set).
    `specific` says whether the docs not knowing any of the terms surely means they do not
    cover the thing: true for identifiers, capitalised names ("Netlify"), Portuguese
    words the glossary translates and, in English questions, rare words ("restic",
    `is_rare_english`). A lower-case word with no translation that the docs
    lack ("acontece", "tweak") may be the subject, but may as well be a word we could not
    translate or the user's own phrasing, so it weighs less (`retrieval.coverage`).
    `named` says the user wrote it as a name or identifier: docs that lack it surely miss
    the subject. `whole_only` marks a CamelCase name ("PostgreSQL", "FastAPI", "OAuth"):
    its parts rank passages, but only the whole name mentions it, since its parts are other
    things ("SQL", "API", "auth") that docs about something else also use.
    """

    terms: tuple[str, ...]
    specific: bool
    related: tuple[str, ...] = ()
    named: bool = False
    whole_only: bool = False
    # A lower-case word with no rendering, and the languages it is looked up in when the
    # collection lacks it: a word neither has is a name (`vocabulary`).
    word: str = field(default="", compare=False)
    languages: tuple[str, ...] = field(default=(), compare=False)

    @property
    def alternatives(self) -> tuple[str, ...]:
        """Every term that counts as mentioning the concept (synonyms included)."""
        if self.whole_only:
            return self.terms[:1]
        return self.terms + self.related


def translations(stemmers: Mapping[str, Stem]) -> dict[str, tuple[str, ...]]:
    """The glossary keyed by Portuguese stem, so inflected forms ("pastas") find the entry
    ("pasta"); words sharing a stem ("tecla", "teclado") share their translations.

    A rendering that is an English stop word ("antes" -> "before") is never indexed; a word
    whose renderings all are stop words is a function word itself (an empty entry:
    `query_concepts` drops it, as it would the English word).
    """
    table: dict[str, tuple[str, ...]] = {}
    for word, english_words in PORTUGUESE_TO_ENGLISH.items():
        key = stemmers[PORTUGUESE](word)
        stems = tuple(stemmers[ENGLISH](w) for w in english_words.split() if w not in STOP_WORDS)
        table[key] = tuple(dict.fromkeys(table.get(key, ()) + stems))
    return table


def synonyms(stemmers: Mapping[str, Stem]) -> dict[str, tuple[str, ...]]:
    """The synonym groups keyed by English stem; each stem maps to the other stems of its
    groups."""
    table: dict[str, tuple[str, ...]] = {}
    for group in ENGLISH_SYNONYMS:
        stems = tuple(dict.fromkeys(stemmers[ENGLISH](w) for w in group.split()))
        for stem in stems:
            others = tuple(s for s in stems if s != stem)
            table[stem] = tuple(dict.fromkeys(table.get(stem, ()) + others))
    return table


def query_concepts(
    text: str, stemmers: Mapping[str, Stem], translated: Translations, related: Synonyms
) -> list[Concept]:
    """A question's concepts, in text order, repeats kept: each word (or identifier) with
    every term that may stand for it in the docs.

    A word brings its English and (when different) Portuguese stem and, unless the
    question is plainly English (an English "core" must not pick up "color" through
    Portuguese "cor"), the glossary's English words for it; an identifier brings its
    whole form and its parts. Grouping them lets the coverage bar ask "is this thing
    the user mentioned in the passage?" once per thing, whichever spelling the docs use.
    """
    # Replaced by a stop word, not a space: the next word must not look sentence-initial.
    tokens = tokenise(_SCAFFOLDING_PHRASE.sub(" que ", text))
    english, portuguese = stemmers[ENGLISH], stemmers[PORTUGUESE]
    english_question = tokens.surely_english()
    glossary: Translations = {} if english_question else translated
    # Each folded word as the user wrote it: vocabularies hold "área", not "area". Only a
    # Portuguese question's lower-case words are looked up as possible names: an English
    # question's rare words are specific already (`is_rare_english`), and as names they
    # refused covered questions that mention a tool in passing ("pytest", "venv": mypy).
    written = {fold_marks(word).casefold(): word.casefold() for word in re.findall(r"\w+", text)}
    portuguese_question = not english_question and tokens.language() == PORTUGUESE
    languages = (PORTUGUESE,)
    concepts: list[Concept] = []
    for token, is_word in tokens.tokens:
        if not is_word and token.casefold() in _ABBREVIATION_TOKENS:
            continue  # "e.g.", "i.e.": no subject of their own
        if not is_word:
            concepts.append(Concept(
                tuple(dict.fromkeys(identifier_terms(token, english))),
                specific=True, named=True, whole_only=token.isalpha(),  # CamelCase
            ))
            continue
        extra = portuguese(token)
        # An acronym is not translated: "RAM" is not "ramo" (branch). A capitalised
        # word may be ("Como Apago O Cache?" is typed in Title Case).
        named = token in tokens.names
        acronym = token in tokens.acronyms
        renderings = None if acronym else _translation(token, extra, glossary, portuguese)
        if token in QUESTION_SCAFFOLDING or renderings == ():
            continue
        stem = english(token)
        renderings = renderings or ()
        terms = (stem,) if extra == stem else (stem, extra)
        synonyms = tuple(s for t in (stem, *renderings) for s in related.get(t, ()))
        concepts.append(Concept(
            tuple(dict.fromkeys(terms + renderings)),
            specific=bool(renderings) or named or acronym
            or (english_question and is_rare_english(token)),
            related=tuple(s for s in dict.fromkeys(synonyms) if s not in terms + renderings),
            named=named,
            word="" if named or acronym or renderings or not token.islower()
            or not portuguese_question else written.get(token, token),
            languages=languages,
        ))
    return concepts


def _translation(
    token: str, stem: str, glossary: Translations, portuguese: Stem
) -> tuple[str, ...] | None:
    """The glossary's English stems for a Portuguese word (by its stem, else by the stem
    of a singular it may be the plural of or an infinitive it may be a form of); None when
    the glossary lacks it."""
    if stem in glossary or not glossary:
        return glossary.get(stem)
    for form in singulars(token) + infinitives(token):
        found = glossary.get(portuguese(form))
        if found is not None:
            return found
    return None


@functools.lru_cache(maxsize=STEM_CACHE_SIZE)
def is_rare_english(word: str) -> bool:
    """Whether a large English tokenizer's vocabulary lacks `word` as one whole word.

    Why: cl100k's byte-pair vocabulary was learned from a huge, mostly English corpus, so
    a common word (" put", " ordinary", " browser") is one token and a rare one splits
    (" restic", " docstrings", " ionice"). In an English question, a lower-case word the
    docs never use is usually the user's own phrasing when it is common, but the name of
    a tool, service or format when it is rare, and docs that never name it do not cover it.
    Inflected forms of common words split too (" chokes", " emptier"), so a word is rare
    only when none of its base forms is one token.
    """
    return all(not _one_token(form) for form in english_base_forms(word))


def _one_token(word: str) -> bool:
    """Whether " word" is one cl100k token. A lower-case alphabetic word is looked up in the
    list generated from the tokenizer (loading the tokenizer costs a search 0.2 s); anything
    else asks the tokenizer itself."""
    if word.isalpha() and word == word.lower():
        return word in _single_token_words()
    return len(get_encoding().encode_ordinary(" " + word)) == 1


@functools.cache
def _single_token_words() -> frozenset[str]:
    return frozenset(wordlists.entries(wordlists.ENGLISH_SINGLE_TOKENS))
