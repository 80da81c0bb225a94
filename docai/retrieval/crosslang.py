"""A question asked in another language than the passages it finds: the bridge between them.

Why: docai's users ask in Portuguese about docs mostly written in English (and sometimes
the reverse). Words then meet only through cognates and the glossary, the coverage bar
refuses what the words cannot show, and the bundled embedding model places the question
farther from its passages than the same question asked in their language.

What a bridge does (`verdict.rank` and `verdict.passages` use it): the question's words
rendered in the passages' language (`docai.text.rendering`) join its own words in the
lexical ranking, the embedding model reads the rendering beside the question, the fusion
weighs the orders as `RetrievalParams.crossing_weights` says, and the coverage bar is met
when either the question's words or their rendering find support in the passages.

The collection's languages are those of a sample of its passages (their stop words, as at
index time); a folder with enough passages in the question's language is not bridged (a
manual beside its translation: the question's own words find their passages).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.rendering import render
from docai.text.tokenise import tokenise

# How many passages, evenly spaced, say which languages a collection is in, and how much
# of each is read: enough stop words to tell, in milliseconds whatever the collection.
LANGUAGE_SAMPLE = 64
LANGUAGE_SAMPLE_CHARS = 1000
# How many passages at the top of each ranking a bridged question reads the language of.
LANGUAGE_CHECKED = 30
# A question is bridged when less than this share of the collection is in its language: a
# folder of both languages (a manual and its translation) has passages in each already.
OWN_LANGUAGE_SHARE = 1 / 3


@dataclass(frozen=True, slots=True)
class Bridge:
    """The question is in `question_language`, most passages in `docs_language`."""

    question_language: str
    docs_language: str

    def render(self, text: str) -> str | None:
        """`text`'s words in the passages' language (None: no word has a rendering)."""
        return render(text, self.docs_language)

    def joined(self, text: str) -> str:
        """`text` followed by its rendering: what the words and the meaning are read from."""
        rendered = self.render(text)
        return text if rendered is None else f"{text}\n{rendered}"


class Texts(Protocol):
    """Passages' texts by row (a `ChunkTable`'s column, or a list)."""

    def __len__(self) -> int: ...

    def __getitem__(self, row: int, /) -> str: ...


def collection_languages(texts: Texts) -> Mapping[str, float]:
    """The share of passages in each language, from an evenly spaced sample of `texts` (a
    passage's language is guessed from its stop words, as when it was indexed)."""
    if not texts:
        return {}
    step = max(1, len(texts) // LANGUAGE_SAMPLE)
    sample = [texts[row] for row in range(0, len(texts), step)]
    found = Counter(passage_language(text[:LANGUAGE_SAMPLE_CHARS]) for text in sample)
    return {language: count / len(sample) for language, count in found.items()}


def fuse(
    own: np.ndarray, joined: np.ndarray, texts: Texts, bridged: Bridge, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The question's own ranking (`own`, chunk ids best first) fused with the ranking of its
    words joined by their rendering (`joined`), each passage judged in its own language.

    A passage in the docs' language is placed by the joined ranking (which holds the
    question's own words too), one in the question's language (a Portuguese page of a
    mostly English folder: the guide's guia-rapido.md) by the question's own ranking: the
    rendering, which it does not speak, neither lifts nor sinks it. The two are merged by
    reciprocal rank (`k`). Only the first `LANGUAGE_CHECKED` passages of each ranking are
    read for their language; the rest count as the docs'."""
    own_rank = {int(row): rank for rank, row in enumerate(own.tolist(), start=1)}
    joined_rank = {int(row): rank for rank, row in enumerate(joined.tolist(), start=1)}
    checked = dict.fromkeys(own.tolist()[:LANGUAGE_CHECKED] + joined.tolist()[:LANGUAGE_CHECKED])
    same = {row for row in checked
            if passage_language(texts[row][:LANGUAGE_SAMPLE_CHARS]) == bridged.question_language}
    scores: dict[int, float] = {}
    for row in own_rank.keys() | joined_rank.keys():
        placed = own_rank if row in same else joined_rank
        if row in placed:
            scores[row] = 1 / (k + placed[row])
    last = len(own_rank) + len(joined_rank) + 1
    order = sorted(scores, key=lambda row: (-scores[row], own_rank.get(row, last),
                                            joined_rank.get(row, last), row))
    return (np.array(order, dtype=np.int64),
            np.array([scores[row] for row in order], dtype=np.float64))


@functools.lru_cache(maxsize=4096)
def passage_language(opening: str) -> str:
    """The language of a passage, from its opening's stop words (as when it was indexed)."""
    return tokenise(opening).language()


def bridge(question: str, languages: Mapping[str, float]) -> Bridge | None:
    """The bridge from `question` to the language most of the collection is in (`languages`:
    `collection_languages`); None when the question's language is unclear (no stop word
    tells) or enough of the collection shares it."""
    tokens = tokenise(question)
    if tokens.surely_english():
        asked = ENGLISH
    elif tokens.language() == PORTUGUESE:
        asked = PORTUGUESE
    else:
        return None
    if not languages or languages.get(asked, 0.0) >= OWN_LANGUAGE_SHARE:
        return None
    docs = max(languages, key=lambda language: languages[language])
    return Bridge(asked, docs)
