"""Turn text into index terms: the `Analyzer` the index and the questions share.

A passage is folded and split (`tokenise`), loses its stop words, and is stemmed in one
language, guessed from its stop words (`language`; long text: reliable). A question
becomes concepts instead (`concepts`): it is short and often mixes languages, so each word
brings both stems and, when Portuguese, its English renderings. Passages are never
translated: the index stays what the docs say.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import docai.text
from docai.records import Chunk
from docai.text import concepts, stemming, wordlists
from docai.text.concepts import Concept
from docai.text.stemming import Stem
from docai.text.tokenise import document_terms, tokenise
from docai.versioning import code_version

# Bump whenever the terms produced for a given text change. A hash of every module of
# `docai.text`, the word lists and the stemmer's version is added anyway.
ANALYZER_VERSION = code_version(
    "12", modules=[docai.text], data=wordlists.WORD_LISTS, packages=["PyStemmer"]
)


@dataclass(frozen=True)
class Analyzer:
    """Text -> terms. `stem=False` keeps folded words as they are; `translate=False` stops
    adding English renderings of a question's Portuguese words.

    Holds its own bounded stem caches (a word is stemmed once per analyzer, not once per
    occurrence), so two analyzers never share mutable state.
    """

    stem: bool = True
    translate: bool = True
    _stemmers: dict[str, Stem] = field(init=False, repr=False, compare=False, hash=False)
    _translations: dict[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _synonyms: dict[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        stemmers = stemming.snowball_stemmers() if self.stem else stemming.unstemmed()
        object.__setattr__(self, "_stemmers", stemmers)
        translations = concepts.translations(stemmers) if self.translate else {}
        object.__setattr__(self, "_translations", translations)
        object.__setattr__(self, "_synonyms", concepts.synonyms(stemmers))

    def terms(self, text: str, language: str | None = None) -> list[str]:
        """Document terms: every word stemmed in one language (guessed when not given)."""
        tokens = tokenise(text)
        return document_terms(tokens, self._stemmers[language or tokens.language()])

    def query_concepts(self, text: str) -> list[Concept]:
        """A question's concepts, in text order (see `concepts.query_concepts`)."""
        return concepts.query_concepts(text, self._stemmers, self._translations, self._synonyms)

    def query_terms(self, text: str) -> list[str]:
        """Question terms: every alternative of every concept (see `query_concepts`)."""
        return [term for concept in self.query_concepts(text) for term in concept.terms]

    def chunk_terms(self, chunk: Chunk) -> list[str]:
        """Index terms of a chunk; the heading path counts once more than the body.

        The text already starts with the heading line; adding the heading again makes a
        passage whose *section* is about the question's subject outrank a passing mention.
        The heading is stemmed in the chunk's language so both copies give the same terms.
        """
        tokens = tokenise(chunk.text)
        language = tokens.language()
        body = document_terms(tokens, self._stemmers[language])
        return body + self.terms(" ".join(chunk.heading_path), language)


@functools.cache
def default_analyzer() -> Analyzer:
    """The analyzer the index and its callers share unless told otherwise.

    One per process, so its stem caches serve every chunk a build worker analyses and
    every question a session asks, instead of starting cold for each call."""
    return Analyzer()


def chunk_terms(chunk: Chunk) -> list[str]:
    """The index-time terms of a chunk, heading boosted."""
    return default_analyzer().chunk_terms(chunk)


def surely_english(text: str) -> bool:
    """Whether `text` uses more English-only than Portuguese-only stop words: docai's own
    answers ("the docs do not cover this") follow such a question's language, and stay in
    Portuguese, the interface's language, when the words do not tell."""
    return tokenise(text).surely_english()
