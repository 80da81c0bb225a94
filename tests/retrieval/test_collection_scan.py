"""The whole-collection scan: a large collection scanned in two stages finds the same best
chunks as comparing the question with every window, with the exact cosines."""

from __future__ import annotations

import numpy as np

from docai.retrieval.collection_scan import EXACT_BELOW_WINDOWS, CollectionScan


def embedding_like(windows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors shaped as a text model's are: one direction shared by all (cosines of
    unrelated texts near 0.8, as E5's), a topic each, and noise; `counts`: 1-4 windows a
    chunk, summing to `windows`."""
    rng = np.random.default_rng(seed)
    dimension, topics = 384, 400
    shared = rng.standard_normal(dimension)
    shared /= np.linalg.norm(shared)
    centres = rng.standard_normal((topics, dimension)) / np.sqrt(dimension)
    topic_of = rng.integers(0, topics, windows)
    vectors = (2.0 * shared + centres[topic_of]
               + 0.5 * rng.standard_normal((windows, dimension)) / np.sqrt(dimension))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    counts = rng.integers(1, 5, windows)
    counts = counts[np.cumsum(counts) <= windows]
    counts = np.append(counts, windows - counts.sum()).astype(np.int64)
    return vectors.astype(np.float16), counts[counts > 0]


def exact_best(vectors: np.ndarray, counts: np.ndarray, query: np.ndarray, n: int
               ) -> tuple[list[int], np.ndarray]:
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    scores = np.maximum.reduceat(vectors.astype(np.float32) @ query, starts)
    return np.argsort(-scores, kind="stable")[:n].tolist(), scores


def scanned_best(scan: CollectionScan, query: np.ndarray, n: int) -> tuple[list[int], np.ndarray]:
    candidates, scores = scan.chunk_scores(query)
    order = candidates[np.argsort(-scores[candidates], kind="stable")]
    return order[:n].tolist(), scores


def test_a_large_collection_is_scanned_in_two_stages_and_finds_the_exact_best_chunks():
    vectors, counts = embedding_like(EXACT_BELOW_WINDOWS + 4_000, seed=3)
    scan = CollectionScan.of(vectors, counts)
    assert not scan.exact
    assert scan.projected is not None and scan.projected.shape[1] < vectors.shape[1]
    rng = np.random.default_rng(5)
    agreed = 0
    for window in rng.integers(0, len(vectors), 20):
        query = vectors[window].astype(np.float32) + 0.01 * rng.standard_normal(384)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        expected, exact_scores = exact_best(vectors, counts, query, 10)
        found, scores = scanned_best(scan, query, 10)
        agreed += len(set(found) & set(expected))
        # What the scan returns is scored with the full vectors: the exact cosines.
        np.testing.assert_allclose(scores[found], exact_scores[found], rtol=1e-5)
    assert agreed >= 0.95 * 20 * 10


def test_a_small_collection_is_scanned_exactly():
    vectors, counts = embedding_like(5_000, seed=4)
    scan = CollectionScan.of(vectors, counts)
    assert scan.exact
    query = vectors[17].astype(np.float32)
    expected, exact_scores = exact_best(vectors, counts, query, 100)
    found, scores = scanned_best(scan, query, 100)
    assert found == expected
    np.testing.assert_array_equal(scores, exact_scores)
