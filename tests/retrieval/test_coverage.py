"""How much of a question the passages cover: the weights behind the coverage bar."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from docai.index.sparse import Csr
from docai.retrieval.coverage import Concepts, passages_coverage
from docai.retrieval.params import DEFAULT_PARAMS

# Two chunks, two terms: chunk 0 holds term 0 only, chunk 1 holds term 1 only.
COUNTS = Csr.of(sp.csr_matrix(np.array([[1, 0], [0, 1]], dtype=np.int32)))
WEIGHTS = np.array([1.0, 1.0])


def _coverage_of_chunk_0(*, second_is_specific: bool) -> float:
    concepts = Concepts(
        columns=(np.array([0]), np.array([1])),
        specific=(True, second_is_specific),
        named=(False, second_is_specific),
    )
    return passages_coverage(COUNTS, np.array([0]), concepts, WEIGHTS, DEFAULT_PARAMS)


def test_a_name_the_passage_lacks_counts_more_against_it_than_an_everyday_word():
    # Both words are in the docs (chunk 1) but not in the passage (chunk 0).
    name_missing = _coverage_of_chunk_0(second_is_specific=True)
    everyday_missing = _coverage_of_chunk_0(second_is_specific=False)
    assert name_missing == 1 / (1 + DEFAULT_PARAMS.absent_share)
    assert everyday_missing == 1 / (1 + DEFAULT_PARAMS.absent_everyday_share)
    assert name_missing < everyday_missing


def test_a_passage_holding_every_concept_covers_the_whole_question():
    concepts = Concepts((np.array([0]), np.array([1])), (True, False), (False, False))
    assert passages_coverage(COUNTS, np.array([0, 1]), concepts, WEIGHTS, DEFAULT_PARAMS) == 1.0
