"""How much of a question a passage (or a whole file) covers: the signal behind refusal.

Why not the ranking score: BM25 grows with idf and RRF only encodes ranks, and even a
bounded cosine cannot tell "the docs do not cover this" from "the docs cover it in other
words", because an uncovered question still shares the corpus' everyday words ("site",
"page", the product's name). What tells them apart is whether the *specific* things the
user mentions occur at all.

So a question is a list of concepts (a word with its English stem, Portuguese stem and
glossary translations; an identifier with its parts; see `Analyzer.query_concepts`). A
concept is covered by a chunk when any of its terms occurs in it. Each concept weighs its
idf (rare concepts say more about the topic than common ones), and a concept the corpus
does not know at all ("Netlify", "KaTeX") weighs as much as the rarest known term: it is
the most specific thing asked, and nothing answers it. An unknown *name* (a capitalised
word, an identifier: "PostgreSQL", "--dry-run") weighs `unknown_name_weight` times that:
the thing a user names is what the question is about, and docs that never mention it do
not cover it, however well they match the rest ("connect my command to a PostgreSQL
database"). An unknown *unspecific* word (a lower-case word we could not translate, or a
common word the docs happen not to use) weighs `unspecific_share` of it: it may be the
subject, so it counts against coverage, but less.

A concept the corpus knows but the passages lack weighs only `absent_share` of its idf:
users describe their problem in their own words ("get rid of old snapshots" for "prune
archives"), and those words are often somewhere in the docs, just not where the answer is.
For an everyday word ("tweak", "hand", "stay", or a Portuguese word the glossary lacks)
the share is `absent_everyday_share`, lower: a paraphrase is made of such words, and the
passage that answers it rarely uses them. A multi-word name ("VS Code") is one more named
concept, covered only where the whole name occurs (`docai.text.names`). Coverage = covered
weight / total weight, in 0..1, comparable across questions and corpora. The numbers are
`RetrievalParams` fields (`docai.retrieval.params`).

Everything here costs the postings of the question's terms (numpy over CSC slices), never
a pass over the corpus in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from docai.index.scoring import lucene_idf
from docai.index.sparse import Csc, Csr
from docai.retrieval.params import RetrievalParams
from docai.text.concepts import Concept
from docai.text.vocabulary import known_word


@dataclass(frozen=True, eq=False)
class Concepts:
    """A question's distinct concepts: the known column ids of each (empty when unknown),
    whether each is specific (an unknown specific concept weighs in full against coverage,
    an unknown unspecific one `unspecific_share` of that) and whether it is a name (an
    unknown one weighs `unknown_name_weight` times in full); see `analysis.Concept`.

    `phrase_rows` adds one named concept per multi-word name (`phrases`): the chunks whose
    text contains it. It counts after the word concepts, and a passage covers it only by
    containing the whole name, not its words apart.
    """

    columns: tuple[np.ndarray, ...]
    specific: tuple[bool, ...]
    named: tuple[bool, ...]
    phrase_rows: tuple[np.ndarray, ...] = ()
    # Chunks of the whole collection holding each phrase, when `phrase_rows` are only the
    # rows of some of its chunks (a store's candidates); None: the lengths of `phrase_rows`.
    phrase_frequency: tuple[int, ...] | None = None

    def __len__(self) -> int:
        return len(self.columns) + len(self.phrase_rows)

    def known(self) -> np.ndarray:
        """Whether the docs hold each concept anywhere."""
        phrases = self.phrase_frequency
        if phrases is None:
            phrases = tuple(len(rows) for rows in self.phrase_rows)
        return np.array([len(ids) > 0 for ids in self.columns] + [n > 0 for n in phrases],
                        dtype=bool)

    def flags(self) -> tuple[np.ndarray, np.ndarray]:
        """(specific, named) of each concept; a multi-word name is both."""
        names = (True,) * len(self.phrase_rows)
        return (np.array(self.specific + names, dtype=bool),
                np.array(self.named + names, dtype=bool))


def named(concepts: Sequence[Concept], columns: Sequence[np.ndarray]) -> tuple[bool, ...]:
    """Whether each concept is a name: written as one, or a lower-case word the collection
    lacks (`columns` empty) that the question's language does not have either
    ("kubernetes", "stripe" in a Portuguese question; `docai.text.vocabulary`)."""
    return tuple(
        concept.named or (len(known) == 0 and bool(concept.word)
                          and not known_word(concept.word, concept.languages))
        for concept, known in zip(concepts, columns, strict=True)
    )


def _postings(postings: Csc, column: int) -> np.ndarray:
    return postings.indices[postings.indptr[column]:postings.indptr[column + 1]]


def concept_weights(
    document_frequency: np.ndarray, rows: int, concepts: Concepts, params: RetrievalParams
) -> np.ndarray:
    """idf of each concept, from the document frequency of its most frequent term (a
    lower bound of the chunks holding any of its terms, read off the postings offsets in
    constant time) or, for a multi-word name, of the chunks holding it; an unknown concept
    weighs as much as the rarest known term (times `unknown_name_weight` when a name,
    `unspecific_share` when unspecific)."""
    phrases = concepts.phrase_frequency
    if phrases is None:
        phrases = tuple(len(chunks) for chunks in concepts.phrase_rows)
    frequency = np.array(
        [document_frequency[c].max(initial=0) for c in concepts.columns] + list(phrases),
        dtype=np.int64,
    )
    unknown = frequency == 0
    specific, named = concepts.flags()
    factor = np.select(
        [unknown & named, unknown & ~specific],
        [params.unknown_name_weight, params.unspecific_share], 1.0,
    )
    return lucene_idf(frequency, rows) * factor


def passages_coverage(
    counts: Csr,
    rows: np.ndarray,
    concepts: Concepts,
    weights: np.ndarray,
    params: RetrievalParams,
) -> float:
    """Coverage (0..1) of the question by the chunks in `rows` taken together.

    Together, because the model reads all of them: a question whose subject is in one
    passage and whose detail is in the next is answered.
    """
    if len(rows) == 0:
        return 0.0
    held = counts.take_rows(rows).indices  # the terms the passages hold (counts are >= 1)
    present = np.array(
        [len(columns) > 0 and bool(np.isin(held, columns).any()) for columns in concepts.columns]
        + [bool(np.isin(phrase, rows).any()) for phrase in concepts.phrase_rows], dtype=bool,
    )
    return float(_coverage(weights, present[:, None], concepts, params)[0])


def file_coverage(
    postings: Csc,
    source_of: np.ndarray,
    sources: Sequence[str],
    concepts: Concepts,
    weights: np.ndarray,
    params: RetrievalParams,
    eligible: np.ndarray | None = None,
) -> tuple[str | None, float]:
    """The file covering most of the question (any of its chunks counts) and its coverage,
    among the `eligible` ones (a boolean per source; None: all).

    Ties go to the first file by name; (None, 0.0) when no concept is known in any.
    """
    present = np.zeros((len(concepts), len(sources)), dtype=bool)
    for concept, columns in enumerate(concepts.columns):
        for column in columns.tolist():
            present[concept, source_of[_postings(postings, column)]] = True
    for phrase, rows in enumerate(concepts.phrase_rows, start=len(concepts.columns)):
        present[phrase, source_of[rows]] = True
    return best_covered(present, sources, concepts, weights, params, eligible)


def best_covered(
    present: np.ndarray,
    sources: Sequence[str],
    concepts: Concepts,
    weights: np.ndarray,
    params: RetrievalParams,
    eligible: np.ndarray | None = None,
) -> tuple[str | None, float]:
    """`file_coverage` from `present` (concepts x sources, sorted by name: does any chunk of
    source j hold concept i?), however it was found (the postings here, or a store's query)."""
    coverage = _coverage(weights, present, concepts, params)
    if eligible is not None:
        coverage[~eligible] = 0.0
    if not coverage.any():
        return None, 0.0
    best = int(np.argmax(coverage))
    return sources[best], float(coverage[best])


def _coverage(
    weights: np.ndarray, present: np.ndarray, concepts: Concepts, params: RetrievalParams
) -> np.ndarray:
    """Coverage of each column of `present` (concepts x candidates: is concept i in
    candidate j?): the share of the concepts' weight that is present, where a known
    concept that is absent weighs `absent_share` of its weight (`absent_everyday_share`
    when unspecific)."""
    if len(weights) == 0:
        return np.zeros(present.shape[1])
    specific, _ = concepts.flags()
    absent_share = np.where(specific, params.absent_share, params.absent_everyday_share)
    absent_factor = np.where(concepts.known(), absent_share, 1.0)[:, None]
    effective = np.where(present, 1.0, absent_factor) * weights[:, None]
    total = effective.sum(axis=0)
    covered = (effective * present).sum(axis=0)
    return np.divide(covered, total, out=np.zeros_like(covered), where=total > 0)
