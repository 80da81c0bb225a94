"""What `make eval` prints and checks: the summary rows, the targets each set misses, the
dense refusal sweep and the paraphrase failures."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from eval_scoring import dense_ranking, outcomes_of, set_summary  # noqa: E402
from eval_sets import (  # noqa: E402
    BLIND_TARGETS,
    DEFAULT_LABEL,
    DEFAULT_METHOD,
    DENSE_DEFAULT,
    DENSE_REFUSALS,
    MAX_FILE_TOKENS,
    TOP_K,
    BlindTargets,
    EvalSet,
    Targets,
    open_set,
    variant_index,
)

from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking  # noqa: E402
from docai.retrieval.embedders import Embedder  # noqa: E402
from docai.retrieval.evaluation import Outcome, Question, Summary  # noqa: E402
from docai.retrieval.params import RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex  # noqa: E402
from docai.retrieval.verdict import NotCovered, retrieve  # noqa: E402


def print_dense_refusals(
    questions: Sequence[Question], index: SearchIndex, dense: DenseRanking,
    params: RetrievalParams,
) -> None:
    """Refused uncovered / wrongly refused covered questions with each dense refusal rule
    (`DENSE_REFUSALS`), at the passage bar in use."""
    print("\ndense refusal (refuse below similarity, accept above it down to coverage): "
          "refused uncovered / covered, hit@3")
    for below, above, floor in DENSE_REFUSALS:
        changed = replace(params, dense_refuse_below=below, dense_accept_above=above,
                          dense_accept_coverage=floor)
        summary = set_summary(questions, variant_index(index, DEFAULT_METHOD, changed),
                           params.min_coverage, dense.with_params(changed))
        refusals = summary.refusals
        print(f"  below {below:.2f} above {above:.2f} cov {floor:.2f}: "
              f"{refusals.uncovered_refused:>3}/{refusals.uncovered:<3}"
              f"{refusals.covered_refused:>3}/{refusals.covered:<4}"
              f"{summary.overall.hit_at(3):.2f}")


def print_paraphrase_failures(questions: Sequence[Question], index: SearchIndex) -> None:
    """Each covered paraphrase question without an answer in the top TOP_K: why, and what
    ranked instead."""
    row_of = {chunk: row for row, chunk in enumerate(index.chunks)}
    print(f"\nparaphrase failures (default; top {TOP_K}):")
    for question in questions:
        if question.type != "paraphrase" or not question.covered:
            continue
        hits = index.search(question.question, evaluation.DEPTH, min_coverage=0.0)
        rank = evaluation.first_hit_rank(question, [hit.chunk for hit in hits])
        refused = isinstance(
            retrieve(index, question.question, TOP_K, max_file_tokens=MAX_FILE_TOKENS), NotCovered
        )
        if rank is not None and rank <= TOP_K and not refused:
            continue
        rows = np.array([row_of[hit.chunk] for hit in hits[:TOP_K]], dtype=np.int64)
        loss = "refusal" if rank is not None and rank <= TOP_K else "ranking"
        print(f"  {question.id} [{loss}] rank {rank} coverage "
              f"{index.coverage(question.question, rows):.2f}: {question.question}")
        for hit in hits[:TOP_K]:
            print(f"      {hit.chunk.source} #{hit.chunk.ordinal} {hit.chunk.heading[:60]!r}")


def target_failures(name: str, summary: Summary, targets: Targets) -> list[str]:
    """Each target the summary misses, as one readable line."""
    failures = []
    overall = summary.overall
    if overall.hit_at(3) < targets.hit_at_3:
        failures.append(f"{name}: hit@3 {overall.hit_at(3):.2f} < {targets.hit_at_3:.2f}")
    if overall.mrr < targets.mrr:
        failures.append(f"{name}: MRR@10 {overall.mrr:.2f} < {targets.mrr:.2f}")
    groups = [("type", n, s) for n, s in summary.by_type if n == "paraphrase"]
    groups += [("lang", n, s) for n, s in summary.by_lang if n == "pt"]
    for kind, group, scores in groups:
        for metric, value, reference in (("hit@3", scores.hit_at(3), overall.hit_at(3)),
                                         ("MRR@10", scores.mrr, overall.mrr)):
            if value < reference - targets.max_gap:
                failures.append(f"{name}: {kind} {group} {metric} {value:.2f} is more than "
                                f"{targets.max_gap:.2f} below overall {reference:.2f}")
    uncovered, covered = _refusal_misses(summary, targets.uncovered_refused,
                                         targets.covered_refused)
    if uncovered:
        failures.append(f"{name}: only {uncovered} uncovered questions refused "
                        f"(target {targets.uncovered_refused:.0%})")
    if covered:
        failures.append(f"{name}: {covered} covered questions wrongly refused "
                        f"(target at most {targets.covered_refused:.0%})")
    return failures


def _refusal_misses(summary: Summary, least_uncovered: float, most_covered: float
                    ) -> tuple[str | None, str | None]:
    """"R of N" for the uncovered questions refused when fewer than `least_uncovered`
    (a share) were, and for the covered ones wrongly refused when more than `most_covered`."""
    refusals = summary.refusals
    uncovered = covered = None
    if refusals.uncovered and refusals.uncovered_refused / refusals.uncovered < least_uncovered:
        uncovered = f"{refusals.uncovered_refused} of {refusals.uncovered}"
    if refusals.covered and refusals.covered_refused / refusals.covered > most_covered:
        covered = f"{refusals.covered_refused} of {refusals.covered}"
    return uncovered, covered


def blind_target_failures(
    name: str, summary: Summary, targets: BlindTargets = BLIND_TARGETS,
) -> list[str]:
    """Each of the dense issue's targets the summary misses, as one readable line."""
    overall = summary.overall
    paraphrase = dict(summary.by_type).get("paraphrase")
    by_lang = dict(summary.by_lang)
    portuguese, english = by_lang.get("pt"), by_lang.get("en")
    failures = []
    if overall.hit_at(3) < targets.hit_at_3:
        failures.append(f"{name}: hit@3 {overall.hit_at(3):.2f} < {targets.hit_at_3:.2f}")
    if overall.mrr < targets.mrr:
        failures.append(f"{name}: MRR@10 {overall.mrr:.2f} < {targets.mrr:.2f}")
    if paraphrase is not None and paraphrase.hit_at(3) < targets.paraphrase_hit_at_3:
        failures.append(f"{name}: paraphrase hit@3 {paraphrase.hit_at(3):.2f} < "
                        f"{targets.paraphrase_hit_at_3:.2f}")
    if portuguese is not None and english is not None and (
        abs(portuguese.hit_at(3) - english.hit_at(3)) > targets.pt_en_gap
    ):
        failures.append(f"{name}: Portuguese hit@3 {portuguese.hit_at(3):.2f} is more than "
                        f"{targets.pt_en_gap:.2f} from English {english.hit_at(3):.2f}")
    uncovered, covered = _refusal_misses(summary, targets.uncovered_refused,
                                         targets.covered_refused)
    if uncovered:
        failures.append(f"{name}: {uncovered} uncovered refused "
                        f"(target {targets.uncovered_refused:.0%})")
    if covered:
        failures.append(f"{name}: {covered} covered wrongly refused (target at most 3 in 91)")
    return failures


def print_blind_targets(rows: Sequence[tuple[str, Summary | None]]) -> None:
    """A blind set's default rows against the dense issue's targets, with English hit@3 (the
    table shows only the Portuguese)."""
    targets = BLIND_TARGETS
    print(f"\nblind set, against the dense issue's targets (hit@3 >= {targets.hit_at_3:.2f}, "
          f"MRR@10 >= {targets.mrr:.2f}, paraphrase hit@3 >= "
          f"{targets.paraphrase_hit_at_3:.2f}, pt within {targets.pt_en_gap:.2f} of en "
          f"hit@3, uncovered refused >= {targets.uncovered_refused:.0%}, covered wrongly "
          "refused <= 3 in 91):")
    print(f"{'configuration':<20}{'hit@3':>7}{'MRR':>7}{'para3':>7}{'pt@3':>7}{'en@3':>7}"
          f"{'refU':>7}{'refC':>7}  targets missed")
    for label, summary in rows:
        if summary is None:
            continue
        groups = dict(summary.by_type) | dict(summary.by_lang)
        cells = [summary.overall.hit_at(3), summary.overall.mrr] + [
            groups[name].hit_at(3) if name in groups else float("nan")
            for name in ("paraphrase", "pt", "en")
        ]
        refusals = summary.refusals
        missed = len(blind_target_failures(label, summary))
        print(f"{label:<20}" + "".join(f"{value:>7.2f}" for value in cells)
              + f"{_fraction(refusals.uncovered_refused, refusals.uncovered):>7}"
              + f"{_fraction(refusals.covered_refused, refusals.covered):>7}"
              + f"  {missed or 'none'}")


def summary_row(label: str, summary: Summary) -> str:
    overall = summary.overall
    paraphrase = dict(summary.by_type).get("paraphrase")
    portuguese = dict(summary.by_lang).get("pt")
    cells = [overall.hit_at(1), overall.hit_at(3), overall.hit_at(10), overall.mrr]
    for group in (paraphrase, portuguese):
        cells += [group.hit_at(3), group.mrr] if group else [float("nan")] * 2
    refusals = summary.refusals
    return (f"{label:<20}" + "".join(f"{value:>7.2f}" for value in cells)
            + f"{_fraction(refusals.uncovered_refused, refusals.uncovered):>7}"
            + f"{_fraction(refusals.covered_refused, refusals.covered):>7}"
            + f"{refusals.covered_fallback:>5}")


def _fraction(part: int, whole: int) -> str:
    return f"{part}/{whole}"


def run_dense_check(
    eval_set: EvalSet, params: RetrievalParams, embedder: Embedder,
) -> tuple[list[Outcome], list[Outcome]] | None:
    """Print the set's lexical and dense defaults side by side (the dense one as from a fresh
    cache: no whole-collection ranking, every candidate embedded); their outcomes, for
    the pooled check. None when the set is broken."""
    opened = open_set(eval_set, params, "dense check")
    if opened is None:
        return None
    questions, settings, index = opened
    lexical = outcomes_of(questions, index, params.min_coverage)
    started = time.perf_counter()
    fresh = replace(params, dense_full_weight=0.0, dense_question_windows=10**9)
    dense = dense_ranking(settings, index, embedder, fresh, full=False)
    dense_default = outcomes_of(questions, index, params.min_coverage, dense)
    elapsed = time.perf_counter() - started
    dense.save()
    print(f"\n{'configuration':<20}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}{'fbC':>5}")
    print(summary_row(DEFAULT_LABEL, evaluation.summarise(lexical)))
    print(summary_row(DENSE_DEFAULT, evaluation.summarise(dense_default)))
    print(f"(dense default: {elapsed:.1f} s, loading the model and embedding the "
          "candidates it lacks included)")
    return lexical, dense_default


def pooled_dense_check(checked: Sequence[tuple[list[Outcome], list[Outcome]]]) -> list[str]:
    """The pooled lexical and dense defaults printed; each figure (hit@3, MRR@10) where the
    dense default is below the lexical one, as a readable line."""
    if not checked:
        return []
    lexical = evaluation.summarise([o for pair in checked for o in pair[0]])
    dense = evaluation.summarise([o for pair in checked for o in pair[1]])
    print(f"\npooled over {len(checked)} sets ({dense.refusals.covered} covered, "
          f"{dense.refusals.uncovered} uncovered questions):")
    print(summary_row(DEFAULT_LABEL, lexical))
    print(summary_row(DENSE_DEFAULT, dense))
    dropped = []
    for metric, lexical_value, dense_value in (
        ("hit@3", lexical.overall.hit_at(3), dense.overall.hit_at(3)),
        ("MRR@10", lexical.overall.mrr, dense.overall.mrr),
    ):
        if dense_value < lexical_value:
            dropped.append(f"pooled: dense default {metric} {dense_value:.3f} < "
                           f"lexical default {lexical_value:.3f}")
    return dropped
