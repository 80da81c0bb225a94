"""`scripts/eval.py --sweep`: the dense re-ranking's numbers scored on sets pooled, and the
defaults chosen by a rule fixed before any figure is seen.

Every configuration of the grid (`GRID`: fusion weights, the re-ranking's RRF k, candidate
depth, whole-collection weight) is scored once on the questions of every set together (one
question, one vote: the sets' outcomes are pooled, not their averages). Two tables:

- *fresh cache*: no set ranks its whole collection (whole-collection weight 0), as for a
  user whose collection is not embedded yet; every set of the run;
- *collection embedded*: the sets of `--full-sets`, their every window embedded first, with
  every whole-collection weight of the grid.

Candidates are scored with all their windows embedded (`dense_question_windows` lifted):
the cap on what a cold question embeds changes its wait, and `make bench` measures that.

The rule (`choose`): among the configurations at least as good as today's default on every
pooled figure that guards the user (hit@3, MRR@10, uncovered questions refused, covered
questions wrongly refused), the one with the highest hit@3 + MRR@10; a tie goes to the one
that changes fewer of today's numbers. The fusion weights, k and depth are chosen on the
fresh-cache table (every set, and the state every user starts in); the whole-collection
weight, with those, on the embedded table, among the weights above 0.

`--whole` (issue 22, item 2, second round): the whole-collection weight alone, on blind sets
that chose nothing yet (`--sets`, each also in `--full-sets`), today's defaults otherwise
(`DEFAULT_PARAMS`), each weight of `WHOLE_WEIGHTS` scored once. The rule, fixed before any
figure was seen (`choose` with today's default as the baseline): the weight above 0 with the
highest hit@3 + MRR@10 among those at least as good as weight 0 on every pooled figure that
guards the user; a tie goes to the smaller weight; none qualifies: 0.

Blind sets choose; tuned sets (`--sets` naming one) are only reported: the table is printed
without a choice. Per-set figures are printed only for today's default and the chosen one,
never per question.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import eval_scoring as ev_scoring  # the outcomes and the dense ranking
import eval_sets as ev_sets  # the sets and their opening

from docai.retrieval import evaluation
from docai.retrieval.dense import DenseRanking
from docai.retrieval.embedders import Embedder
from docai.retrieval.evaluation import Outcome, Question, Summary
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.search_index import SearchIndex

WEIGHTS = ((3.0, 1.0), (2.0, 1.0), (1.0, 1.0))
RRF_KS = (10, 5)
DEPTHS = (20, 30, 50)
FULL_WEIGHTS = (0.0, 1.0, 2.0)
WHOLE_WEIGHTS = (0.0, 0.5, 1.0, 2.0)
# Today's default before this sweep (session 9): what every choice must not fall below.
BASELINE = {"rerank_weights": (3.0, 1.0), "dense_rrf_k": 10, "dense_candidates": 20,
            "dense_full_weight": 0.0}


@dataclass(frozen=True, slots=True)
class Point:
    """One configuration of the grid: the `RetrievalParams` fields it sets."""

    weights: tuple[float, float]
    rrf_k: int
    depth: int
    full: float

    @property
    def changes(self) -> dict[str, Any]:
        return {"rerank_weights": self.weights, "dense_rrf_k": self.rrf_k,
                "dense_candidates": self.depth, "dense_full_weight": self.full}

    @property
    def label(self) -> str:
        lexical, dense = self.weights
        return f"{lexical:g}:{dense:g} k{self.rrf_k} c{self.depth} full {self.full:g}"

    def distance(self) -> int:
        """How many of today's numbers this configuration changes."""
        return sum(value != BASELINE[name] for name, value in self.changes.items())


BASELINE_POINT = Point(BASELINE["rerank_weights"], BASELINE["dense_rrf_k"],
                       BASELINE["dense_candidates"], BASELINE["dense_full_weight"])


def grid(full_weights: Sequence[float]) -> list[Point]:
    return [Point(w, k, d, f)
            for w, k, d, f in itertools.product(WEIGHTS, RRF_KS, DEPTHS, full_weights)]


@dataclass
class Opened:
    name: str
    role: str
    questions: tuple[Question, ...]
    index: SearchIndex
    dense: DenseRanking
    complete: bool


def run(argv: Sequence[str], embedder: Embedder) -> int:
    names = _listed(argv, "--sets")
    full_names = set(_listed(argv, "--full-sets") or ())
    chosen = [s for s in ev_sets.SETS if (s.name in names if names else s.role == "blind")]
    unknown = (set(names or ()) | full_names) - {s.name for s in ev_sets.SETS}
    if unknown:
        raise SystemExit(f"eval: unknown set {', '.join(sorted(unknown))}")
    params = replace(DEFAULT_PARAMS, dense_question_windows=10**9)
    opened = []
    for eval_set in chosen:
        ev_sets.fetch_docs_of(eval_set)
        found = ev_sets.open_set(eval_set, params, eval_set.role)
        if found is None:
            print(f"\nFAILED: {eval_set.name}: gold answers not in the docs (listed above)")
            return 1
        questions, settings, index = found
        dense = ev_scoring.dense_ranking(settings, index, embedder, params,
                                  full=eval_set.name in full_names)
        opened.append(Opened(eval_set.name, eval_set.role, questions, index, dense,
                             eval_set.name in full_names))
    blind = all(o.role == "blind" for o in opened)
    roles = ", ".join(f"{o.name} ({o.role})" for o in opened)
    print(f"\nsweep over {roles}; {'blind: the rule chooses' if blind else 'reported only'}")

    started = time.perf_counter()
    if "--whole" in argv:
        return _choose_whole(opened, params, blind)
    if "--embedded-only" in argv:  # the second table alone (another process scores the first)
        wanted = _listed(argv, "--points")  # labels' beginnings, e.g. "1:1 k5 c30"
        points = [p for p in grid(FULL_WEIGHTS)
                  if wanted is None or any(p.label.startswith(w) for w in wanted)]
        _table("collection embedded: " + ", ".join(o.name for o in opened if o.complete),
               [o for o in opened if o.complete], points, params)
        return 0
    fresh = _table("fresh cache (no whole-collection ranking)", opened, grid((0.0,)), params)
    winner = choose(fresh) if blind else None
    embedded_sets = [o for o in opened if o.complete]
    embedded: dict[Point, tuple[Summary, dict[str, Summary]]] = {}
    if embedded_sets:
        embedded = _table("collection embedded: " + ", ".join(o.name for o in embedded_sets),
                          embedded_sets, grid(FULL_WEIGHTS), params)
    for item in opened:
        item.dense.save()
    print(f"\n(scored in {time.perf_counter() - started:.0f} s)")
    if winner is None:
        return 0
    print(f"\nchosen on the fresh-cache table: {winner.label}")
    final = winner
    if embedded:
        with_full = {point: row for point, row in embedded.items() if point.full > 0
                     and (point.weights, point.rrf_k, point.depth)
                     == (winner.weights, winner.rrf_k, winner.depth)}
        with_full[BASELINE_POINT] = embedded[BASELINE_POINT]
        final = choose(with_full, allow_baseline=False) or winner
        print(f"whole-collection weight chosen on the embedded table: {final.full:g}")
    _per_set("per set, today's default", fresh[BASELINE_POINT][1])
    _per_set(f"per set, chosen ({winner.label})", fresh[winner][1])
    if embedded:
        _per_set("per set, collection embedded, today's default", embedded[BASELINE_POINT][1])
        _per_set(f"per set, collection embedded, chosen ({final.label})", embedded[final][1])
    return 0


def _choose_whole(opened: Sequence[Opened], params: RetrievalParams, blind: bool) -> int:
    """`--whole`: the whole-collection weight on the embedded sets, today's defaults
    otherwise, chosen by the module docstring's rule when every set is blind."""
    if not all(o.complete for o in opened):
        raise SystemExit("eval: --whole scores embedded collections: name every set in "
                         "--full-sets too")
    # The rule's baseline is weight 0 whatever today's default weight is.
    today = Point(DEFAULT_PARAMS.rerank_weights, DEFAULT_PARAMS.dense_rrf_k,
                  DEFAULT_PARAMS.dense_candidates, 0.0)
    points = [replace(today, full=weight) for weight in WHOLE_WEIGHTS]
    rows = _table("collection embedded, today's default with each whole-collection weight",
                  opened, points, params, baseline=today)
    for item in opened:
        item.dense.save()
    if blind:
        chosen = choose(rows, baseline=today, allow_baseline=False) or today
        print(f"\nwhole-collection weight chosen: {chosen.full:g}")
        _per_set(f"per set, {today.label}", rows[today][1])
        if chosen != today:
            _per_set(f"per set, {chosen.label}", rows[chosen][1])
    return 0


def choose(
    rows: dict[Point, tuple[Summary, dict[str, Summary]]], *, allow_baseline: bool = True,
    baseline: Point = BASELINE_POINT,
) -> Point | None:
    """The rule of the module docstring: None when no configuration qualifies. A tie goes
    to the fewest changed numbers, then to the first in `rows`' order."""
    base = rows[baseline][0]

    def qualifies(summary: Summary) -> bool:
        r, b = summary.refusals, base.refusals
        return (summary.overall.hit_at(3) >= base.overall.hit_at(3)
                and summary.overall.mrr >= base.overall.mrr
                and r.uncovered_refused >= b.uncovered_refused
                and r.covered_refused <= b.covered_refused)

    eligible = [point for point, (summary, _) in rows.items() if qualifies(summary)
                and (allow_baseline or point != baseline)]
    if not eligible:
        return None

    def merit(point: Point) -> tuple[float, int]:
        overall = rows[point][0].overall
        return round(overall.hit_at(3) + overall.mrr, 9), -point.distance()

    return max(eligible, key=merit)


def _table(
    title: str, opened: Sequence[Opened], points: Sequence[Point], params: RetrievalParams,
    *, baseline: Point = BASELINE_POINT,
) -> dict[Point, tuple[Summary, dict[str, Summary]]]:
    """Each point's pooled summary (and per-set ones, kept for the two printed later),
    one printed row each."""
    questions = sum(len(o.questions) for o in opened)
    print(f"\n{title}: {questions} questions pooled")
    print(f"{'configuration':<26}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'pt@3':>7}{'en@3':>7}{'refU':>8}{'refC':>8}")
    rows = {}
    for point in points:
        changed = replace(params, **point.changes)
        pooled: list[Outcome] = []
        per_set = {}
        for item in opened:
            outcomes = _outcomes(item, item.dense.with_params(changed))
            pooled += outcomes
            per_set[item.name] = evaluation.summarise(outcomes)
        summary = evaluation.summarise(pooled)
        rows[point] = (summary, per_set)
        mark = " *" if point == baseline else ""
        print(_row(point.label + mark, summary), flush=True)
    print("(* today's default; para3: paraphrase hit@3; refU: uncovered refused, refC: "
          "covered wrongly refused)")
    return rows


def _outcomes(item: Opened, dense: DenseRanking) -> list[Outcome]:
    return ev_scoring.outcomes_of(item.questions, item.index, item.index.params.min_coverage, dense)


def _row(label: str, summary: Summary) -> str:
    overall = summary.overall
    groups = dict(summary.by_type) | dict(summary.by_lang)
    cells = [overall.hit_at(1), overall.hit_at(3), overall.hit_at(10), overall.mrr] + [
        groups[name].hit_at(3) if name in groups else float("nan")
        for name in ("paraphrase", "pt", "en")]
    refusals = summary.refusals
    return (f"{label:<26}" + "".join(f"{value:>7.3f}" for value in cells)
            + f"{refusals.uncovered_refused:>5}/{refusals.uncovered:<3}"
            + f"{refusals.covered_refused:>4}/{refusals.covered:<3}")


def _per_set(title: str, per_set: dict[str, Summary]) -> None:
    print(f"\n{title}:")
    for name, summary in per_set.items():
        print(_row(name, summary))


def _listed(argv: Sequence[str], flag: str) -> list[str] | None:
    return next((value.split(",") for name, value in zip(argv, argv[1:], strict=False)
                 if name == flag), None)


if __name__ == "__main__":
    sys.exit("run it as scripts/eval.py --sweep")
