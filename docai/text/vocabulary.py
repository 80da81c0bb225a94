"""Whether a word belongs to a language's vocabulary: how a lower-case name is told apart
from a word.

Why: a question naming something the docs never mention is not covered, and a name written
in lower case ("como conecto no kubernetes?", "pagar com stripe") looks like any other word.
A word the collection never contains, that the glossary cannot render and that the
question's own language does not have, is a name (a product, a service, a tool): the
coverage bar then weighs it as one (`retrieval.coverage`). "desligo", a Portuguese word the
glossary lacks, stays an everyday word.

The vocabularies are simplemma's (MIT): inflected forms of 54 languages, Portuguese and
English among them. Loading one takes a few seconds, so it is asked only about words the
collection does not contain (`retrieval.coverage.named`), and once per process.
"""

from __future__ import annotations

import functools

from docai.text.language import ENGLISH, PORTUGUESE

_CODES = {ENGLISH: "en", PORTUGUESE: "pt"}


def known_word(word: str, languages: tuple[str, ...]) -> bool:
    """Whether `word` (lower case) is a word of any of `languages` (`language.ENGLISH`,
    `PORTUGUESE`). True when no vocabulary can tell (simplemma missing): an unknown word
    then stays an everyday one, as it was before vocabularies were asked."""
    return any(_known(word, _CODES[language]) for language in languages)


@functools.lru_cache(maxsize=4096)
def _known(word: str, code: str) -> bool:
    try:
        import simplemma
    except ImportError:
        return True
    return bool(simplemma.is_known(word, lang=code)) or bool(
        simplemma.is_known(word.capitalize(), lang=code))
