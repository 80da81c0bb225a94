"""History passages (changelogs, release notes, announcements) placed below content in the
final ranking, unless the question asks about versions or changes.

A changelog names nearly every option and function a project ever touched, in short entries
that match a question's words better than the page explaining them ("#1234: `-x` now stops
after the first error" outranks the page on `-x`). Such a passage stays the answer to a
question about a release, so it is never dropped: its score is only weighed down
(`RetrievalParams.history_weight`) among the top `history_depth` passages. Which passages
and questions are history is `docai.loading.boilerplate`'s to say.

The ranking only: the verdict (answer or refuse) is judged on the order before this, so a
question is refused or answered exactly as without it (`SearchIndex.top_hits`). The local
index and the shared store's client both re-order here, over the same top passages, so
both return the same passages and scores.
"""

from __future__ import annotations

import numpy as np

from docai.index.chunk_table import ChunkTable
from docai.loading.boilerplate import asks_about_history, is_history
from docai.retrieval.params import RetrievalParams


def history_below(
    question: str, chunks: ChunkTable, ranked: np.ndarray, scores: np.ndarray,
    params: RetrievalParams,
) -> tuple[np.ndarray, np.ndarray]:
    """`ranked` (chunk ids of `chunks`, best first, with their `scores`) with the history
    passages of its top `history_depth` weighed down, unless `question` asks about history
    (then, or with a weight of 1, as given)."""
    if params.history_weight == 1.0 or asks_about_history(question):
        return ranked, scores
    top = ranked[: params.history_depth].tolist()
    flags = np.array([is_history(*heading(chunks, row)) for row in top], dtype=bool)
    return history_last(ranked, scores, flags, params.history_weight)


def heading(chunks: ChunkTable, row: int) -> tuple[str, tuple[str, ...]]:
    """The source and heading path of chunk `row`, without decoding its text."""
    first, last = chunks.heading_offsets[row], chunks.heading_offsets[row + 1]
    return (chunks.sources[chunks.source_ids[row]],
            tuple(chunks.heading_parts[part] for part in range(first, last)))


def history_last(
    ranked: np.ndarray, scores: np.ndarray, history: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """`ranked` (best first, with its `scores`) with the score of each of its first
    `len(history)` passages for which `history` is true multiplied by `weight`, and that
    prefix sorted again (equal scores keep their order); the tail is left as it is.

    Only a prefix is weighed: a history passage trades places with content near it, and the
    shared store reads no deeper than its ranking's top (`history_depth` at least)."""
    depth = len(history)
    if not history.any():
        return ranked, scores
    weighed = scores[:depth] * np.where(history, weight, 1.0)
    order = np.argsort(-weighed, kind="stable")
    return (np.concatenate([ranked[:depth][order], ranked[depth:]]),
            np.concatenate([weighed[order], scores[depth:]]))
