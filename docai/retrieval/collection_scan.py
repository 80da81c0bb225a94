"""The dense ranking of a whole collection, fast enough to run with every question.

Ranking the whole collection compares the question with every window's vector. Done
exactly, that reads them all for each question: at 100k chunks 258,584 x 384 floats, 397 MB,
about 26 ms of a memory-bound matrix product on two cores, half a warm question's budget.
A large collection is scanned in two stages instead, as the re-ranking stage of an
approximate nearest-neighbour index does: each window's projection on the collection's
main directions (its vectors' principal components, from a fixed sample; `SCAN_SHARE` of
the model's dimensions) scores every window in a quarter of the reading, and the best
`RESCORED_SHARE` of them are scored again with their full vectors, so the order returned
is the exact cosine's among them. Centring before projecting loses nothing: the mean's
share of a score is the same for every window of one question. A collection under
`EXACT_BELOW_WINDOWS` windows is scanned exactly (a few milliseconds).

The two shares were chosen on real collections, every window embedded, by how much of the
exact ranking the scan keeps (`scripts/scan_recall.py`, no gold answer read): with a
quarter of E5-small's 384 dimensions and 5 % of the windows rescored, 95-99 % of the exact
top 10 and the same first chunk for 238 of 240 questions of four blind sets; a rescored
share of 0.8 % lost a tenth to a quarter of the top 10 even with half the dimensions.

Memory: the full vectors stay float32 (rescoring gathers scattered rows, and numpy's float16
conversion costs more than the scan saves), and the projections add a quarter to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Below this many windows (about 25k chunks) the exact scan takes a few milliseconds.
EXACT_BELOW_WINDOWS = 65_536
# The first stage projects on this share of the model's dimensions.
SCAN_SHARE = 0.25
# The share of windows, best first by the first stage, scored with their full vectors.
RESCORED_SHARE = 0.05
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
        """The scan of `vectors` (one row per window, chunk by chunk), `counts[row]` windows
        for the chunk of each row."""
        chunk_of = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        full = np.asarray(vectors, dtype=np.float32)
        windows, dimension = full.shape
        if windows < EXACT_BELOW_WINDOWS:
            return cls(full, chunk_of, len(counts))
        kept = max(1, round(dimension * SCAN_SHARE))
        sample = full[:: max(1, windows // SAMPLE_WINDOWS)]
        mean = sample.mean(axis=0)
        # The right singular vectors of the centred sample, largest first: its main directions.
        _, _, directions = np.linalg.svd(sample - mean, full_matrices=False)
        basis = np.ascontiguousarray(directions[:kept].T)
        projected = np.empty((windows, kept), dtype=np.float32)
        for start in range(0, windows, SAMPLE_WINDOWS):  # bounded temporary copies
            projected[start:start + SAMPLE_WINDOWS] = (
                full[start:start + SAMPLE_WINDOWS] - mean) @ basis
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
            keep = max(1, round(len(coarse) * RESCORED_SHARE))
            windows = np.argpartition(coarse, len(coarse) - keep)[len(coarse) - keep:]
            similarities = self.vectors[windows] @ query
        np.maximum.at(scores, self.chunk_of[windows], similarities)
        return np.unique(self.chunk_of[windows]), scores
