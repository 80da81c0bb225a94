"""A question ranked from packed postings gets the local index's ranking and scores, to the
last bit: the same chunks in the same order, the same floats (no database needed)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from docai.retrieval.params import DEFAULT_PARAMS, METHODS
from docai.retrieval.search_index import SearchIndex, open_index
from docai.settings import Settings
from docai.store import packs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    settings = Settings(docs_dir=ROOT / "resources" / "docs",
                        cache_dir=tmp_path_factory.mktemp("cache"))
    return open_index(settings)[0]


def _packed(index: SearchIndex) -> tuple[packs.Packing, dict[str, tuple[int, bytes]]]:
    counts, vocabulary = index.matrix.counts, index.matrix.vocabulary
    chunks = index.chunks
    keys = [(chunks[i].source, chunks[i].ordinal) for i in range(len(chunks))]
    vectors = [(counts.indices[counts.indptr[i]:counts.indptr[i + 1]],
                counts.data[counts.indptr[i]:counts.indptr[i + 1]]) for i in range(len(chunks))]
    # term ids unlike column numbers, in an order unlike the terms' text order
    ids = {j: 1000 + (j * 7919) % 100_003 for j in range(len(vocabulary))}
    packing = packs.pack(keys, [(np.array([ids[j] for j in v[0].tolist()]), v[1])
                                for v in vectors],
                         {ids[j]: term for j, term in enumerate(vocabulary)})
    frequency = np.diff(counts.to_scipy().tocsc().indptr)
    return packing, {term: (int(frequency[j]), packing.postings[ids[j]])
                     for j, term in enumerate(vocabulary)}


def _questions() -> list[str]:
    lines = (ROOT / "tests" / "eval" / "docai.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


@pytest.mark.parametrize("method", METHODS)
def test_packed_ranking_is_the_local_ranking(local: SearchIndex, method: str) -> None:
    index = SearchIndex(local.chunks, local.matrix, method)
    packing, by_term = _packed(index)
    tiebreak = index.chunks.tiebreak()
    assert np.array_equal(packing.rows, tiebreak)  # pack rows are the local tie-break
    analyzer = index._analyzer
    average = float(index.matrix.counts.row_sums().sum()) / len(index)
    compared = 0
    for question in _questions() + ["configurar o modelo padrão", "zzzz desconhecido"]:
        expected = index.rank(question, 3)
        got = packs.rank(method, Counter(analyzer.query_terms(question)), by_term, len(index),
                         average, DEFAULT_PARAMS, 3)
        if expected is None:
            assert got is None
            continue
        assert got is not None
        assert np.array_equal(got[0], tiebreak[expected[0]]), question
        assert got[1].tobytes() == expected[1].tobytes(), question
        compared += 1
    assert compared > 20


def test_each_chunk_keeps_its_tfidf_length(local: SearchIndex) -> None:
    packing, by_term = _packed(local)
    records = np.concatenate([np.frombuffer(p, dtype=packs.POSTING) for _, p in by_term.values()])
    assert set(records["row"].tolist()) == set(range(len(local)))
    lengths = np.zeros(len(local), dtype=np.int64)
    lengths[records["row"]] = records["length"]
    assert np.array_equal(lengths[packing.rows], local.matrix.counts.row_sums())
