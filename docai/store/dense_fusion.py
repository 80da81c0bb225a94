"""A dense question's final ranking, fused by the client from what two statements read,
before any chunk is read: so only the chunks the verdict can reach are read (their text and
terms), not every chunk a ranking names.

What it fuses is what `docai.retrieval.dense.DenseRanking.rerank` fuses for a collection
ranked whole, over the collection's pack rows (a chunk's pack row is its local row, in
(source, ordinal) order: the local tie-break): the lexical ranking from the packs, the dense
order of its top `dense_candidates`, and the chunks nearest the question in the whole
collection (`vector_queries.read_windows`), each scored by its best window as the local
index scores it. `tests/store` checks the passages and scores against the local index's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docai.retrieval.fusion import fuse_by_meaning, meaning_weights, top
from docai.retrieval.params import RetrievalParams
from docai.store.vector_queries import WindowRead


@dataclass(frozen=True, slots=True, eq=False)
class Fused:
    """`question`'s final ranking as pack rows (best first) with their fused scores, and
    the best window cosine of its dense candidates (the verdict's `similarity`)."""

    question: str
    rows: np.ndarray
    scores: np.ndarray
    similarity: float


@dataclass(frozen=True, slots=True, eq=False)
class DenseRead:
    """What a dense question read with its candidates (`StoreDense.read`): the window
    vectors of its candidates and of the collection's chunks nearest it, and the final
    ranking fused from them (None for a bridged question's joined rendering, which the
    verdict fuses with the question's own ranking first)."""

    question: str
    read: WindowRead
    fused: Fused | None


def fuse(question: str, query: np.ndarray, lexical: np.ndarray, read: WindowRead,
         params: RetrievalParams) -> Fused | None:
    """The fused ranking of `lexical` (pack rows, best first) for `question` embedded as
    `query`; None when a dense candidate has no vector in `read` (it was not read whole)."""
    candidates = lexical[: params.dense_candidates]
    # Compact ids, in pack-row order: the tie-break is the id itself.
    rows = np.unique(np.concatenate([lexical, read.pack_rows]))
    tiebreak = np.arange(len(rows), dtype=np.int64)
    at = {row: position for position, row in enumerate(read.pack_rows.tolist())}
    if any(row not in at for row in candidates.tolist()):
        return None
    # Each set scored by a product of its own, as the local index scores it: the bits of a
    # float32 product depend on a row's place in the matrix (BLAS computes the last rows
    # apart), and exact ties (broken by the tie-break) are common. The candidates' matrix
    # is the local one, row for row; the collection's is padded, as the local whole
    # collection's rows are all but its last few computed in full blocks.
    similarities = read.best(query, np.array([at[row] for row in candidates.tolist()],
                                             dtype=np.int64))
    best = np.full(len(rows), -np.inf, dtype=np.float32)
    best[np.searchsorted(rows, read.pack_rows)] = read.best(query, padded=True)
    weights = meaning_weights(params)
    full = (top(np.searchsorted(rows, read.pack_rows), best, tiebreak, params.rank_depth)
            if weights[2] > 0 else None)
    fused, scores = fuse_by_meaning(
        np.searchsorted(rows, lexical[: params.rank_depth]), np.searchsorted(rows, candidates),
        similarities, tiebreak, params, weights, full)
    return Fused(question, rows[fused], scores, float(similarities.max()))
