"""`make eval`: compare retrieval configurations on the QA sets and enforce the targets.

For each set (docai's own guide, and MkDocs' public docs fetched by `fetch_eval_docs`):
1. check that every gold answer occurs in a chunk of its source (a broken set fails loudly
   rather than silently lowering the scores);
2. score every configuration worth comparing: method (hybrid, tfidf, bm25) x stemming on/off,
   each with docai's default relevance bar;
3. sweep the relevance bar for the default configuration (refused uncovered questions
   against wrongly refused covered ones), the data for calibrating `DEFAULT_MIN_RELEVANCE`.

Exits 1 when the default configuration misses a target on the MkDocs set (each miss is
printed), or when a set is broken; 0 otherwise. `--report-only` still prints everything and
fails on a broken set, but not on missed targets. Indexes are cached under tests/eval/data/.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_eval_docs import DATA_DIR, FetchError, fetch  # noqa: E402

from docai import evaluation  # noqa: E402
from docai.analysis import Analyzer  # noqa: E402
from docai.build import open_index  # noqa: E402
from docai.commands.evaluate import load_questions  # noqa: E402
from docai.evaluation import Question, Summary  # noqa: E402
from docai.index import DEFAULT_MIN_RELEVANCE, METHODS, SearchIndex, TermMatrix  # noqa: E402
from docai.settings import Settings  # noqa: E402

DEFAULT_METHOD = Settings().retrieval
BARS = (0.0, 0.02, 0.04, 0.05, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20, 0.25, 0.30)


@dataclass(frozen=True, slots=True)
class Targets:
    """What the default configuration must reach on the real-docs set."""

    hit_at_3: float = 0.70
    mrr: float = 0.60
    max_gap: float = 0.10  # paraphrase and Portuguese questions vs overall
    uncovered_refused: float = 0.80
    covered_refused: float = 0.10


@dataclass(frozen=True, slots=True)
class EvalSet:
    name: str
    qa_file: Path
    docs: Path
    enforced: bool


SETS = (
    EvalSet("docai", ROOT / "tests/eval/docai.jsonl", ROOT / "resources/docs", enforced=False),
    EvalSet("mkdocs", ROOT / "tests/eval/mkdocs.jsonl", DATA_DIR / "mkdocs", enforced=True),
)


def main(argv: Sequence[str] = ()) -> int:
    report_only = "--report-only" in argv
    try:
        fetch()
    except FetchError as error:
        print(f"eval: cannot fetch the evaluation docs: {error}", file=sys.stderr)
        return 1
    failures: list[str] = []
    for eval_set in SETS:
        default = run_set(eval_set)
        if default is None:
            print(f"\nFAILED: {eval_set.name}: gold answers not in the docs (listed above)")
            return 1
        if eval_set.enforced:
            failures += target_failures(eval_set.name, default, Targets())
    if failures and report_only:
        print("\nTargets missed (not enforced: --report-only):\n"
              + "\n".join(f"  - {failure}" for failure in failures))
        return 0
    if failures:
        print("\nFAILED:\n" + "\n".join(f"  - {failure}" for failure in failures))
        return 1
    print("\nAll targets met.")
    return 0


def run_set(eval_set: EvalSet) -> Summary | None:
    """Print the set's comparison table and bar sweep; the default configuration's summary.

    None when the set is broken (a gold answer that no chunk of its source contains).
    """
    questions = load_questions(eval_set.qa_file)
    settings = Settings(docs_dir=eval_set.docs, cache_dir=DATA_DIR / "cache")
    index, report = open_index(settings, progress=False)
    print(f"\n== {eval_set.name}: {eval_set.qa_file.relative_to(ROOT)} "
          f"({len(questions)} questions) over {eval_set.docs.relative_to(ROOT)} "
          f"({report.files} files, {report.chunks} chunks)")
    problems = evaluation.check_gold(questions, index.chunks)
    if problems:
        print("\n".join(problems))
        return None

    print(f"\n{'configuration':<24}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}")
    default = _summary(questions, index, DEFAULT_MIN_RELEVANCE)
    print(_row(f"{DEFAULT_METHOD}+stem (default)", default))
    for stem in (True, False):
        analyzer = Analyzer(stem=stem)
        matrix = TermMatrix.from_term_lists([analyzer.chunk_terms(c) for c in index.chunks])
        for method in METHODS:
            if stem and method == DEFAULT_METHOD:
                continue  # the default row above
            variant = SearchIndex(index.chunks, matrix, method, analyzer=analyzer)
            label = f"{method}+{'stem' if stem else 'nostem'}"
            print(_row(label, _summary(questions, variant, DEFAULT_MIN_RELEVANCE)))
    print("(para3/paraM, pt@3/ptM: hit@3/MRR of paraphrase and Portuguese questions; "
          "refU: uncovered refused, refC: covered wrongly refused)")

    print(f"\nrelevance bar sweep ({DEFAULT_METHOD}+stem; min_score is a TF-IDF cosine):")
    print(f"{'min_score':>10}{'refused uncovered':>20}{'refused covered':>18}"
          f"{'hit@3':>7}{'MRR':>7}")
    for bar in BARS:
        summary = _summary(questions, index, bar)
        refusals = summary.refusals
        mark = "  <- default" if bar == DEFAULT_MIN_RELEVANCE else ""
        print(f"{bar:>10.2f}{_fraction(refusals.uncovered_refused, refusals.uncovered):>20}"
              f"{_fraction(refusals.covered_refused, refusals.covered):>18}"
              f"{summary.overall.hit_at(3):>7.2f}{summary.overall.mrr:>7.2f}{mark}")
    if default.misses:
        print(f"\nno hit in the top 10 (default): {', '.join(default.misses)}")
    return default


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
    refusals = summary.refusals
    if refusals.uncovered and (
        refusals.uncovered_refused / refusals.uncovered < targets.uncovered_refused
    ):
        failures.append(f"{name}: only {refusals.uncovered_refused} of {refusals.uncovered} "
                        f"uncovered questions refused (target {targets.uncovered_refused:.0%})")
    if refusals.covered and refusals.covered_refused / refusals.covered > targets.covered_refused:
        failures.append(f"{name}: {refusals.covered_refused} of {refusals.covered} covered "
                        f"questions wrongly refused (target at most {targets.covered_refused:.0%})")
    return failures


def _summary(questions: Sequence[Question], index: SearchIndex, bar: float) -> Summary:
    outcomes = evaluation.evaluate(questions, lambda q, k: index.search(q, k, bar))
    return evaluation.summarise(outcomes)


def _row(label: str, summary: Summary) -> str:
    overall = summary.overall
    paraphrase = dict(summary.by_type).get("paraphrase")
    portuguese = dict(summary.by_lang).get("pt")
    cells = [overall.hit_at(1), overall.hit_at(3), overall.hit_at(10), overall.mrr]
    for group in (paraphrase, portuguese):
        cells += [group.hit_at(3), group.mrr] if group else [float("nan")] * 2
    refusals = summary.refusals
    return (f"{label:<24}" + "".join(f"{value:>7.2f}" for value in cells)
            + f"{_fraction(refusals.uncovered_refused, refusals.uncovered):>7}"
            + f"{_fraction(refusals.covered_refused, refusals.covered):>7}")


def _fraction(part: int, whole: int) -> str:
    return f"{part}/{whole}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
