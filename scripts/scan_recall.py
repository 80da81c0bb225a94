"""How close the two-stage whole-collection scan comes to the exact one, on real vectors.

`python scripts/scan_recall.py SET [SET ...]`: for each evaluation set whose whole
collection is embedded (tests/eval/data/cache, as `scripts/eval.py --dense-full` leaves
it), the set's questions ranked over the whole collection exactly and by the two-stage scan
(`docai.retrieval.collection_scan`), forced on however small the collection (its shares of
dimensions and of windows rescored are those of a large one). Prints how many of the exact
top 10 and top `rank_depth` (100) chunks the scan finds, and how often their first is the
same. No gold answer is read: this measures the approximation, not retrieval.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from unittest import mock

import eval_scoring as ev_scoring  # the dense ranking
import eval_sets as ev_sets  # the sets and their opening
import numpy as np

from docai.retrieval import collection_scan
from docai.retrieval.embedders import BundledE5
from docai.retrieval.fusion import top
from docai.retrieval.params import DEFAULT_PARAMS


def main(names: list[str]) -> int:
    embedder = BundledE5()
    params = replace(DEFAULT_PARAMS, dense_full_weight=1.0)
    for eval_set in (s for s in ev_sets.SETS if s.name in names):
        questions, settings, index = ev_sets.open_set(eval_set, params, eval_set.role)
        dense = ev_scoring.dense_ranking(settings, index, embedder, params, full=False)
        if not dense.known_complete():
            print(f"{eval_set.name}: not every window embedded (scripts/eval.py --dense-full)")
            continue
        exact_scan = dense.collection._stacked()
        if exact_scan is None:
            continue
        windows = len(exact_scan.chunk_of)
        rescored = max(1, round(collection_scan.RESCORED_SHARE * windows))
        tiebreak = index.chunks.tiebreak()
        queries = [dense.question_vector(q.question) for q in questions]
        expected = [top(*exact_scan.chunk_scores(query), tiebreak, params.rank_depth)
                    for query in queries]
        with mock.patch.object(collection_scan, "EXACT_BELOW_WINDOWS", 0):
            two_stage = dense.collection._stacked()
            if two_stage is None:
                continue
            found = [top(*two_stage.chunk_scores(query), tiebreak, params.rank_depth)
                     for query in queries]
        pairs = list(zip(expected, found, strict=True))
        top10 = np.mean([len(set(a[:10]) & set(b[:10])) / 10 for a, b in pairs])
        deep = np.mean([len(set(a) & set(b)) / len(a) for a, b in pairs])
        first = np.mean([a[0] == b[0] for a, b in pairs])
        print(f"{eval_set.name}: {windows} windows, {rescored} rescored, {len(queries)} "
              f"questions: top 10 {top10:.3f}, top {params.rank_depth} {deep:.3f}, "
              f"first {first:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
