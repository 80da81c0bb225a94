"""Cross-language twins: each question asked in the other language than its docs, beside its
twin asked in the docs' language (same gold), scored side by side per direction.

The twin is the oracle: what a perfect translation of the question would give. A set's
questions are paired by id (`xf01-pt` and `xf01-en`); a question's `type` says which of the
pair crosses languages (`crosslang`) and which is the twin (`twin`); `uncovered` questions
(gold empty) come in both languages too, and should be refused in both.

Besides hit@k and refusals this prints `page@3`: whether a gold *file* is among the top
three sources (what a user of the guide sees: the right page, whatever its passage).

`scripts/eval.py` prints the words-only table in every run, and `--crosslang` scores the
sets fully embedded with the bundled model (every window of each collection embedded once,
then cached under tests/eval/data/cache/), the configuration the targets speak of.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from eval_scoring import dense_ranking, outcomes_of  # noqa: E402
from eval_sets import EvalSet, _fetched, fetch_docs_of, open_set  # noqa: E402

from docai.retrieval.dense import DenseRanking  # noqa: E402
from docai.retrieval.embedders import Embedder  # noqa: E402
from docai.retrieval.evaluation import Outcome, Question  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex  # noqa: E402
from docai.retrieval.verdict import search  # noqa: E402


def _crosslang(docs: str) -> EvalSet:
    fetched = _fetched(docs, "blind")
    return EvalSet(f"crosslang-{docs}", ROOT / f"tests/eval/crosslang-{docs}.jsonl",
                   fetched.docs, "blind")


# Written blind, before any cross-language change, and scored once before and once after.
CROSSLANG_SETS = (
    EvalSet("crosslang-docai", ROOT / "tests/eval/crosslang-docai.jsonl",
            ROOT / "resources/docs", "blind"),
    *(_crosslang(docs) for docs in ("flask", "click", "foca-linux")),
)
MAX_GAP = 0.05  # the targets: each language's hit@3 within this of its twins'


@dataclass(frozen=True, slots=True)
class Side:
    """One language's questions of a direction: ranks, refusals, right pages."""

    outcomes: tuple[Outcome, ...]
    pages: tuple[bool, ...]  # a gold file among the top three sources

    def hit_at(self, k: int) -> float:
        covered = [o for o in self.outcomes if o.question.covered]
        return sum(1 for o in covered if o.rank is not None and o.rank <= k) / max(1, len(covered))

    @property
    def mrr(self) -> float:
        covered = [o for o in self.outcomes if o.question.covered]
        return sum(1 / o.rank for o in covered if o.rank is not None) / max(1, len(covered))

    @property
    def covered(self) -> int:
        return sum(1 for o in self.outcomes if o.question.covered)

    @property
    def wrongly_refused(self) -> int:
        return sum(1 for o in self.outcomes if o.question.covered and o.refused)

    @property
    def uncovered(self) -> int:
        return sum(1 for o in self.outcomes if not o.question.covered)

    @property
    def uncovered_refused(self) -> int:
        return sum(1 for o in self.outcomes if not o.question.covered and o.refused)

    @property
    def page_at_3(self) -> int:
        return sum(self.pages)


@dataclass(frozen=True, slots=True)
class Twins:
    """A set's cross-language questions and their twins."""

    name: str
    direction: str  # "pt -> en docs" or "en -> pt docs"
    cross: Side
    twin: Side

    def failures(self, label: str) -> list[str]:
        gap = self.twin.hit_at(3) - self.cross.hit_at(3)
        found = []
        if gap > MAX_GAP:
            found.append(f"{self.name} {label}: hit@3 {self.cross.hit_at(3):.2f} against the "
                         f"twins' {self.twin.hit_at(3):.2f} (gap {gap:.2f} > {MAX_GAP})")
        if self.cross.wrongly_refused > self.twin.wrongly_refused:
            found.append(f"{self.name} {label}: {self.cross.wrongly_refused} covered refused "
                         f"against the twins' {self.twin.wrongly_refused}")
        return found


def score_twins(
    eval_set: EvalSet, index: SearchIndex, dense: DenseRanking | None, params: RetrievalParams,
    questions: Sequence[Question],
) -> Twins:
    """Each question scored as `eval.py` scores it, split into the cross-language side (the
    language of the `crosslang` questions) and the twins' side."""
    outcomes = outcomes_of(questions, index, params.min_coverage, dense)
    cross_lang = next(q.lang for q in questions if q.type == "crosslang")
    sides = []
    for crossing in (True, False):
        chosen = [o for o in outcomes if (o.question.lang == cross_lang) == crossing]
        sides.append(Side(tuple(chosen), tuple(_right_page(index, o, dense) for o in chosen)))
    docs_lang = "en" if cross_lang == "pt" else "pt"
    return Twins(eval_set.name, f"{cross_lang} -> {docs_lang} docs", sides[0], sides[1])


def _right_page(index: SearchIndex, outcome: Outcome, dense: DenseRanking | None) -> bool:
    question = outcome.question
    if not question.covered or outcome.refused:
        return False
    hits = search(index, question.question, 3, 0.0, dense)
    gold = {g.source for g in question.gold}
    return any(hit.chunk.source in gold for hit in hits[:3])


def print_twins(twins: Twins, label: str) -> None:
    print(f"\n{twins.name} [blind] {label}: {twins.direction}, each question beside its twin")
    print(f"{'':<22}{'n':>4}{'hit@1':>7}{'hit@3':>7}{'MRR':>7}{'page@3':>8}{'refC':>6}"
          f"{'refU':>7}")
    for side_label, side in ((f"cross ({twins.direction[:2]})", twins.cross),
                             (f"twin ({twins.direction[6:8]})", twins.twin)):
        print(f"{side_label:<22}{side.covered:>4}{side.hit_at(1):>7.2f}{side.hit_at(3):>7.2f}"
              f"{side.mrr:>7.2f}{side.page_at_3:>5}/{side.covered:<2}{side.wrongly_refused:>6}"
              f"{side.uncovered_refused:>4}/{side.uncovered:<2}")
    twin_by_pair = {_pair(o.question.id): o for o in twins.twin.outcomes}
    differing = []
    for outcome in twins.cross.outcomes:
        other = twin_by_pair.get(_pair(outcome.question.id))
        if other is not None and _shown(outcome) != _shown(other):
            differing.append(f"{_pair(outcome.question.id)} {_shown(outcome)}|{_shown(other)}")
    if differing:
        print("pairs that differ (cross|twin; a rank, '-' no hit in 10, 'R' refused): "
              + ", ".join(differing))


def _pair(question_id: str) -> str:
    return question_id.rsplit("-", 1)[0]


def _shown(outcome: Outcome) -> str:
    if outcome.refused:
        return "R"
    return "-" if outcome.rank is None else str(outcome.rank)


def run(
    embedder: Embedder | None, params: RetrievalParams = DEFAULT_PARAMS,
    only: Sequence[str] | None = None,
) -> list[str]:
    """Print every cross-language set's twin table (words only, or fully embedded with
    `embedder`); the missed targets (reported, never enforced)."""
    label = "fully embedded" if embedder is not None else "words only"
    missed: list[str] = []
    for eval_set in CROSSLANG_SETS:
        if only is not None and eval_set.name not in only:
            continue
        fetch_docs_of(_fetched(eval_set.name.removeprefix("crosslang-"), "blind"))
        opened = open_set(eval_set, params, "blind, cross-language")
        if opened is None:  # a broken set fails loudly, as every set of `make eval` does
            raise SystemExit(f"FAILED: {eval_set.name}: gold answers not in the docs "
                             "(listed above)")
        questions, settings, index = opened
        dense = None
        if embedder is not None:
            dense = dense_ranking(settings, index, embedder, params, full=True)
        twins = score_twins(eval_set, index, dense, params, questions)
        print_twins(twins, label)
        missed += twins.failures(label)
        if dense is not None:
            dense.save()
    return missed
