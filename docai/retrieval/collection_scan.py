"""The dense ranking of a whole collection, fast enough to run with every question.

Ranking the whole collection compares the question with every window's vector. Done
exactly, that reads them all for each question: at 100k chunks 258,584 x 384 floats, 397 MB,
about 26 ms of a memory-bound matrix product on two cores, half a warm question's budget.
A large collection is scanned in two stages instead, as the re-ranking stage of an
approximate nearest-neighbour index does: each window's projection on the collection's
main directions (its vectors' principal components, from a fixed sample; `SCAN_SHARE` of
the model's dimensions) scores every window in half the reading, and the best
`RESCORED_WINDOWS` are scored again with their full vectors, so the order returned is the
exact cosine's among them. Centring before projecting loses nothing: the mean's share of a
score is the same for every window of one question. A collection under
`EXACT_BELOW_WINDOWS` windows is scanned exactly (a few milliseconds).

Memory: a large collection's full vectors are kept as float16 (they are stored so) beside
float32 projections of half their size: as much as the exact scan's float32 matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Below this many windows (about 25k chunks) the exact scan takes a few milliseconds.
EXACT_BELOW_WINDOWS = 65_536
# The first stage projects on this share of the model's dimensions. On real collections
# (scripts/scan_recall.py, E5-small's 384) a sixth and a third lost up to a quarter of the
# exact top 10 at the share of windows rescored at 100k chunks; a half found all of it.
SCAN_SHARE = 0.5
# Windows the second stage scores with their full vectors (about 20 for each chunk of
# `RetrievalParams.rank_depth`).
RESCORED_WINDOWS = 2048
# Windows of the fixed sample the principal directions are computed from.
SAMPLE_WINDOWS = 16_384


@dataclass(frozen=True, slots=True, eq=False)
class CollectionScan:
    """Every window's vector of a collection (`chunk_of`: each window's chunk row), with,
    for a large collection, the projection that scans them (`basis`, `projected`)."""

    vectors: np.ndarray
    chunk_of: np.ndarray
    chunks: int
    basis: np.ndarray | None = None
    projected: np.ndarray | None = None

    @classmethod
    def of(cls, vectors: np.ndarray, counts: np.ndarray) -> CollectionScan:
        """The scan of `vectors` (float32 or float16, one row per window, chunk by chunk),
        `counts[row]` windows for the chunk of each row."""
        chunk_of = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        windows, dimension = vectors.shape
        if windows < EXACT_BELOW_WINDOWS:
            return cls(np.asarray(vectors, dtype=np.float32), chunk_of, len(counts))
        kept = max(1, round(dimension * SCAN_SHARE))
        full = np.asarray(vectors, dtype=np.float16)
        step = max(1, windows // SAMPLE_WINDOWS)
        sample = full[::step].astype(np.float32)
        mean = sample.mean(axis=0)
        # The right singular vectors of the centred sample, largest first: its main directions.
        _, _, directions = np.linalg.svd(sample - mean, full_matrices=False)
        basis = np.ascontiguousarray(directions[:kept].T, dtype=np.float32)
        projected = np.empty((windows, kept), dtype=np.float32)
        for start in range(0, windows, SAMPLE_WINDOWS):  # bounded float32 copies
            block = full[start:start + SAMPLE_WINDOWS].astype(np.float32) - mean
            projected[start:start + SAMPLE_WINDOWS] = block @ basis
        return cls(full, chunk_of, len(counts), basis, projected)

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def exact(self) -> bool:
        return self.projected is None

    def chunk_scores(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The chunks scored (rows, ascending) and a score for every chunk row (its best
        window's cosine with `query`; -inf for a chunk the scan did not score)."""
        scores = np.full(self.chunks, -np.inf, dtype=np.float32)
        if self.projected is None or self.basis is None:
            windows = np.arange(len(self.chunk_of))
            similarities = self.vectors @ query
        else:
            coarse = self.projected @ (query @ self.basis)
            keep = min(RESCORED_WINDOWS, len(coarse))
            windows = np.argpartition(coarse, len(coarse) - keep)[len(coarse) - keep:]
            similarities = self.vectors[windows].astype(np.float32) @ query
        np.maximum.at(scores, self.chunk_of[windows], similarities)
        return np.unique(self.chunk_of[windows]), scores
