"""From per-chunk scores to a final ranked list: top-n, rank fusion, near-duplicate removal.

Every ordering here breaks ties with a fixed per-chunk `tiebreak` rank (the chunk's place
in (source, ordinal) order), so equal scores never make results depend on build order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from docai.retrieval.params import RetrievalParams


def top(candidates: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray, n: int) -> np.ndarray:
    """The best `n` of `candidates` (chunk ids), by score descending then tiebreak.

    `scores` holds one value per chunk of the index (indexed by chunk id). Only the
    candidates at or above the n-th best score are sorted, so large candidate sets cost a
    linear partition rather than a full sort.
    """
    values = scores[candidates]
    if len(candidates) > n:
        threshold = np.partition(values, len(values) - n)[len(values) - n]
        keep = values >= threshold
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((tiebreak[candidates], -values))
    return candidates[order[:n]]


def reciprocal_rank_fusion(
    rankings: list[np.ndarray],
    tiebreak: np.ndarray,
    *,
    k: int,
    weights: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Fuse rankings of chunk ids by sum of weight / (k + rank), rank starting at 1
    (`k`: `RetrievalParams.rrf_k`).

    Ranks, not raw scores, are fused: BM25 and cosine live on different scales, and RRF
    (Cormack et al., 2009) needs no calibration. `weights` (one per ranking, default 1)
    let a more reliable ranking count more. A chunk absent from a ranking gets nothing
    from it. Returns (chunk ids, fused scores), best first.
    """
    fused: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        for rank, chunk_id in enumerate(ranking.tolist(), start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
    ids = np.fromiter(fused.keys(), dtype=np.int64, count=len(fused))
    values = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
    order = np.lexsort((tiebreak[ids], -values))
    return ids[order], values[order]


def drop_near_duplicates(similarities: np.ndarray, k: int, threshold: float) -> list[int]:
    """Positions (into a ranked list) of the first `k` items not too similar to a better one.

    `similarities[i, j]` is the cosine between ranked items i and j. Copies of the same
    passage (a section repeated across files, a page saved twice) would otherwise fill
    the few slots the prompt has with one text.
    """
    chosen: list[int] = []
    for position in range(similarities.shape[0]):
        if all(similarities[position, earlier] < threshold for earlier in chosen):
            chosen.append(position)
            if len(chosen) == k:
                break
    return chosen


def meaning_weights(params: RetrievalParams, *, crossing: bool = False) -> tuple[float, ...]:
    """The weights of the lexical order, the candidates' meaning order and the whole
    collection's meaning order; a question in another language than its passages has its
    own (`crossing_weights`): there the words carry little."""
    if crossing and params.crossing_weights is not None:
        return tuple(params.crossing_weights)
    return (*params.rerank_weights, params.dense_full_weight)


def fuse_by_meaning(
    lexical: np.ndarray, candidates: np.ndarray, similarities: np.ndarray,
    tiebreak: np.ndarray, params: RetrievalParams, weights: Sequence[float],
    full: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A ranking by words (`lexical`, best first) fused with its `candidates` ordered by
    their `similarities` to the question, and with the whole collection's order by meaning
    (`full`) when there is one. The one fusion of the local index and the shared store,
    so both give the same passages and scores."""
    dense_order = candidates[np.lexsort((tiebreak[candidates], -similarities))]
    rankings = [lexical[: params.rank_depth], dense_order]
    if full is not None:
        rankings.append(full)
    return reciprocal_rank_fusion(rankings, tiebreak, k=params.dense_rrf_k,
                                  weights=list(weights[: len(rankings)]))
