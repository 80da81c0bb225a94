"""The dense default by embedding stage: `python scripts/eval_stages.py [SET,...]` (default:
the three blind `--dense-ci` sets).

For each set, its questions asked once each, in order, by one dense ranking (as `docai
search` reads them from stdin, one process), with the collection embedded to four stages:

- words only: `--dense off`;
- 0 %: an empty vector store, every question embedding what the bounded default embeds
  before the collection is (`dense_fresh_candidates`);
- 10 %: the store holding the first tenth of the collection's chunks, in the background
  pass's order;
- 100 %: every window embedded, the whole collection ranked too (the default once a pass
  ends).

Windows are embedded once per set, by the whole-collection pass (kept under
tests/eval/data/cache/); the partial stages read their vectors from it through an embedder
that looks a window up by its text instead of computing it again: the same vectors, in
seconds. It prints the rows per set and pooled, and the windows each question embedded at
0 % (mean and most). Reported, never enforced.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from eval_report import summary_row  # noqa: E402
from eval_scoring import StoredQueries, outcomes_of  # noqa: E402
from eval_sets import DENSE_CI_SETS, SETS, open_set  # noqa: E402

from docai.index import vector_store  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking, open_dense_ranking  # noqa: E402
from docai.retrieval.embedders import BundledE5  # noqa: E402
from docai.retrieval.evaluation import Outcome  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS  # noqa: E402
from docai.retrieval.window_vectors import WindowVectors  # noqa: E402

STAGES = ("words only", "0 % embedded", "10 % embedded", "100 % embedded")
HEADER = (f"{'stage':<20}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}{'para3':>7}"
          f"{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}{'fbC':>5}{'en@3':>7}"
          f"{'enM':>7}")


class LookedUp:
    """An embedder whose windows come from a fully embedded store (by their text's key),
    counting how many it was asked for: what a question would have embedded."""

    def __init__(self, queries: StoredQueries, full: WindowVectors) -> None:
        self._queries = queries
        self._full = full
        self.windows = 0

    @property
    def name(self) -> str:
        return self._queries.name

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.windows += len(texts)
        keys = [vector_store.checksum(text) for text in texts]
        if self._full.missing(keys):
            return self._queries.embed_passages(texts)
        return self._full.get(keys)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._queries.embed_queries(texts)

    def close(self) -> None:
        self._queries.close()


def _staged(dense: DenseRanking, share: float) -> None:
    """Fill `dense`'s store with the windows of the first `share` of the chunks."""
    rows = np.arange(int(len(dense.chunks) * share), dtype=np.int64)
    dense.job.embed_windows(dense.windows.missing(rows))


def run(name: str) -> dict[str, list[Outcome]] | None:
    eval_set = next(s for s in SETS if s.name == name)
    opened = open_set(eval_set, DEFAULT_PARAMS, "stages")
    if opened is None:
        return None
    questions, settings, index = opened
    cache_dir = settings.resolved_cache_dir()
    model = BundledE5()
    queries = StoredQueries(model, vector_store.store_path(cache_dir, model.name + "?q"))
    full = open_dense_ranking(index.chunks, queries, cache_dir, warn=print,
                              bounded_until_complete=True)
    report = full.embed_pending(prune=False)
    print(f"(whole collection: {report.embedded} windows embedded now, "
          f"{len(full.vectors)} stored)")
    bar = DEFAULT_PARAMS.min_coverage
    results = {STAGES[0]: outcomes_of(questions, index, bar)}
    costs: list[int] = []
    for stage, share in ((STAGES[1], 0.0), (STAGES[2], 0.1)):
        with tempfile.TemporaryDirectory() as scratch:
            embedder = LookedUp(queries, full.vectors)
            dense = open_dense_ranking(index.chunks, embedder, Path(scratch), warn=print,
                                       bounded_until_complete=True)
            _staged(dense, share)
            outcomes = []
            for question in questions:
                before = embedder.windows
                outcomes += outcomes_of([question], index, bar, dense)
                if share == 0.0:
                    costs.append(embedder.windows - before)
            results[stage] = outcomes
    results[STAGES[3]] = outcomes_of(questions, index, bar, full)
    print(HEADER)
    for stage, outcomes in results.items():
        print(_row(stage, outcomes))
    print(f"(0 %: windows embedded per question, mean {np.mean(costs):.1f}, most {max(costs)})")
    return results


def _row(stage: str, outcomes: list[Outcome]) -> str:
    """The eval's summary row, and the English questions' hit@3 and MRR (the Portuguese
    ones' are in it)."""
    summary = evaluation.summarise(outcomes)
    english = dict(summary.by_lang).get("en")
    cells = [english.hit_at(3), english.mrr] if english else [float("nan")] * 2
    return summary_row(stage, summary) + "".join(f"{value:>7.2f}" for value in cells)


def main(argv: Sequence[str]) -> int:
    names = argv[0].split(",") if argv else list(DENSE_CI_SETS)
    pooled: dict[str, list[Outcome]] = {stage: [] for stage in STAGES}
    for name in names:
        results = run(name)
        if results is None:
            return 1
        for stage, outcomes in results.items():
            pooled[stage] += outcomes
    print(f"\npooled over {len(names)} sets:\n{HEADER}")
    for stage, outcomes in pooled.items():
        print(_row(stage, outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
