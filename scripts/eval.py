"""`make eval`: compare retrieval configurations on the QA sets and enforce the targets.

Twenty-one sets: docai's own guide and twenty documentation collections (`fetch_eval_docs`
fetches them, pinned). Each set's role is "tuned" (its questions were looked at while
choosing a default), "enforced" (tuned, and its targets gate `make eval`: MkDocs),
"held-out" (only its figures were seen; printed and checked against the targets, never
enforced) or "blind" (written before the change it measures and scored once, with that
change's final defaults: printed and checked against that issue's targets, `BLIND_TARGETS`,
never enforced). Which sets were written blind, when each was first scored and what it was
used for is recorded in docs/evaluation.md: write a new blind set before tuning on a
held-out one.

For each set:
1. check that every gold answer occurs in a chunk of its source (a broken set fails loudly
   rather than silently lowering the scores);
2. score the configurations worth comparing, before/after style: the issue's reference
   (standard BM25 with Snowball stems, from bm25s, on the raw chunk text, never refusing),
   plain TF-IDF (the baseline, `--retrieval tfidf`), textbook BM25 (b = 0.75), BM25 as
   tuned, and docai's default; docai's with its default coverage bars (refusals and
   fallbacks included);
3. sweep the passage bar and the file bar for the default configuration (refused
   uncovered questions against wrongly refused covered ones): the data the defaults
   `min_coverage` and `min_file_coverage` of `docai.retrieval.params` come from.

`--param NAME=VALUE` (repeatable) runs everything with that `RetrievalParams` field changed
(`--param absent_share=0.5 --param hybrid_weights="(0.5, 1.0)"`; the value is a Python
literal): how every other tuned number of retrieval and refusal is tried.

Exits 1 when the default configuration misses a target on the MkDocs set (each miss is
printed), or when a set is broken; 0 otherwise. `--report-only` still prints everything and
fails on a broken set, but not on missed targets. `--diagnose` also lists, per set, the
paraphrase questions the default configuration fails, each as a ranking loss (no hit in the
top passages) or a refusal loss (the hit is there but the coverage bar refused), with its
coverage and top passages: the two losses call for different fixes. Indexes are cached
under tests/eval/data/.

`--dense` (`make eval-dense`) scores the sets dense retrieval was tuned on (`DENSE_SETS`;
any others with `--sets`), and prints beside the lexical configurations the dense ones
(`DENSE_CONFIGURATIONS`: the bundled multilingual E5 re-ranking the lexical candidates),
then the refusal sweep with the dense similarity. Candidate windows are embedded when
missing and their vectors, like the questions', are kept under tests/eval/data/cache/, so
only the first run is slow. `--dense-full` first embeds each set's whole collection, for
the configurations that also rank the whole collection; `--dense-windows` adds other
window sizes (embedding the candidates again for each). A blind set gets the dense default
only: the other dense configurations are choices, and a blind set must not choose. `--sets
NAME,NAME` scores only those sets.

Every full run (no `--sets`) also prints the cross-language twin tables
(`scripts/eval_crosslang.py`: Portuguese questions about English docs and the reverse,
each beside its twin asked in the docs' language), words only; `--dense-ci` adds the
guide's fully embedded, and `--crosslang` scores every cross-language set fully embedded
(each collection embedded once, then cached). Reported, never enforced.

`--sweep` (`scripts/eval_sweep.py`) scores the grid of the dense re-ranking's numbers on
the blind sets pooled (or `--sets`; `--full-sets NAME,...` also embeds those sets' whole
collections) and chooses the defaults by the rule that module states.

`--dense-ci` (a step of `make eval`) scores three blind sets (`DENSE_CI_SETS`, or
`--sets`) with the
lexical default and the dense default as a fresh cache gives it (no whole-collection
ranking, every candidate embedded: the same figures on a cold CI machine and a warm one),
the bundled model embedding the candidates it lacks, and exits 1 when the dense default's
hit@3 or MRR@10 over the sets pooled is below the lexical default's: dense retrieval is
docai's default, and it must never rank collections nobody tuned on worse than the words
alone. `--report-only` does not silence this check.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import eval_crosslang  # noqa: E402
from eval_report import (  # noqa: E402
    blind_target_failures,
    pooled_dense_check,
    print_blind_targets,
    print_dense_refusals,
    print_paraphrase_failures,
    run_dense_check,
    summary_row,
    target_failures,
)
from eval_scoring import dense_ranking, reference_summary, set_summary  # noqa: E402
from eval_sets import (  # noqa: E402
    CONFIGURATIONS,
    DEFAULT_LABEL,
    DEFAULT_METHOD,
    DENSE_CI_SETS,
    DENSE_CONFIGURATIONS,
    DENSE_DEFAULT,
    DENSE_FULL_CONFIGURATIONS,
    DENSE_SETS,
    DENSE_WINDOW_CONFIGURATIONS,
    FILE_BARS,
    PASSAGE_BARS,
    REFERENCE_LABEL,
    SETS,
    TOP_K,
    Configuration,
    EvalSet,
    Targets,
    fetch_docs_of,
    open_set,
    parse_params,
    variant_index,
)
from fetch_eval_docs import FetchError  # noqa: E402

from docai.retrieval.embedders import BundledE5, Embedder  # noqa: E402
from docai.retrieval.evaluation import Outcome, Summary  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams  # noqa: E402


def main(argv: Sequence[str] = ()) -> int:
    if "--sweep" in argv:
        import eval_sweep

        return eval_sweep.run(argv, BundledE5())
    if "--crosslang" in argv:
        return _report_crosslang(BundledE5(), None)
    report_only = "--report-only" in argv
    diagnose = "--diagnose" in argv
    dense_check = "--dense-ci" in argv
    embedder = BundledE5() if "--dense" in argv or dense_check else None
    full = "--dense-full" in argv
    extra = ((DENSE_FULL_CONFIGURATIONS if full else ())
             + (DENSE_WINDOW_CONFIGURATIONS if "--dense-windows" in argv else ()))
    only = next((value.split(",") for flag, value in zip(argv, argv[1:], strict=False)
                 if flag == "--sets"), None)
    if only is None and dense_check:
        only = list(DENSE_CI_SETS)
    elif only is None and embedder is not None:
        only = list(DENSE_SETS)
    unknown = [name for name in only or () if name not in {s.name for s in SETS}]
    if unknown:
        raise SystemExit(f"eval: unknown set {', '.join(unknown)} "
                         f"(one of {', '.join(s.name for s in SETS)})")
    params = parse_params(argv)
    if params != DEFAULT_PARAMS:
        print(f"eval: running with {params}")
    failures: list[str] = []
    held_out: list[str] = []
    held_out_ran = False
    blind: list[str] = []
    blind_ran = False
    skipped: list[str] = []
    checked: list[tuple[list[Outcome], list[Outcome]]] = []
    for eval_set in SETS:
        if only is not None and eval_set.name not in only:
            continue
        try:
            fetch_docs_of(eval_set)
        except FetchError as error:
            # A pinned point-release package can leave the archive; only the enforced set
            # must be there, the others are reported missing rather than failing the run.
            print(f"\neval: cannot fetch the {eval_set.name} docs: {error}", file=sys.stderr)
            if eval_set.role == "enforced":
                return 1
            skipped.append(eval_set.name)
            continue
        if dense_check:
            assert embedder is not None
            scored = run_dense_check(eval_set, params, embedder)
            if scored is None:
                print(f"\nFAILED: {eval_set.name}: gold answers not in the docs (listed above)")
                return 1
            checked.append(scored)
            continue
        result = run_set(eval_set, params, diagnose, embedder, full, extra)
        if result is None:
            print(f"\nFAILED: {eval_set.name}: gold answers not in the docs (listed above)")
            return 1
        default, dense_default = result
        missed = target_failures(eval_set.name, default, Targets())
        if eval_set.role == "enforced":
            failures += missed
        elif eval_set.role == "held-out":
            held_out += missed
            held_out_ran = True
        elif eval_set.role == "blind":
            blind += blind_target_failures(f"{eval_set.name} {DEFAULT_LABEL}", default)
            if dense_default is not None:
                blind += blind_target_failures(f"{eval_set.name} {DENSE_DEFAULT}", dense_default)
            blind_ran = True
    if skipped:
        print(f"\nNot evaluated (docs could not be fetched): {', '.join(skipped)}")
    if held_out_ran:
        print("\nHeld-out sets (not tuned on; not enforced): "
              + ("all targets met." if not held_out else "targets missed:\n"
                 + "\n".join(f"  - {miss}" for miss in held_out)))
    if blind_ran:
        print("\nBlind sets (scored once; not enforced), against the dense issue's targets: "
              + ("all met." if not blind else "missed:\n"
                 + "\n".join(f"  - {miss}" for miss in blind)))
    if only is None:
        _report_crosslang(None, None)
    elif dense_check:
        _report_crosslang(embedder, ["crosslang-docai"])
    if dense_check:
        failures += pooled_dense_check(checked)
    if dense_check and failures:
        print("\nFAILED: the dense default dropped below the lexical default:\n"
              + "\n".join(f"  - {failure}" for failure in failures))
        return 1
    if failures and report_only:
        print("\nTargets missed (not enforced: --report-only):\n"
              + "\n".join(f"  - {failure}" for failure in failures))
        return 0
    if failures:
        print("\nFAILED:\n" + "\n".join(f"  - {failure}" for failure in failures))
        return 1
    if dense_check:
        print("\nDense default at or above the lexical default, pooled.")
    elif any(s.role == "enforced" and s.name not in skipped for s in SETS
             if only is None or s.name in only):
        print("\nAll targets met.")
    else:
        print("\nNo enforced set in this run.")
    return 0


def _report_crosslang(embedder: Embedder | None, only: list[str] | None) -> int:
    """The cross-language twin tables (`eval_crosslang`) and their missed targets, reported,
    never enforced."""
    missed = eval_crosslang.run(embedder, only=only)
    print("\nCross-language twins (blind; not enforced): "
          + ("every language within 0.05 of its twins." if not missed else "missed:\n"
             + "\n".join(f"  - {miss}" for miss in missed)))
    return 0


def run_set(
    eval_set: EvalSet,
    params: RetrievalParams = DEFAULT_PARAMS,
    diagnose: bool = False,
    embedder: Embedder | None = None,
    full: bool = False,
    extra: tuple[Configuration, ...] = (),
) -> tuple[Summary, Summary | None] | None:
    """Print the set's comparison table and bar sweep with `params` (and, when `diagnose`,
    its paraphrase failures; with `embedder`, the dense configurations and their refusal
    sweep; for a blind set, the dense default only and the blind targets); the summaries of
    the lexical default (the one `make eval` gates) and of the dense default (None without
    `embedder`).

    None when the set is broken (a gold answer that no chunk of its source contains).
    """
    blind = eval_set.role == "blind"
    opened = open_set(eval_set, params, eval_set.role)
    if opened is None:
        return None
    questions, settings, index = opened

    print(f"\n{'configuration':<20}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}{'fbC':>5}")
    default = None
    print(summary_row(REFERENCE_LABEL, reference_summary(questions, index.chunks)))
    for configuration in CONFIGURATIONS:
        changed = replace(params, **configuration.changes)
        variant = variant_index(index, configuration.method, changed)
        summary = set_summary(questions, variant, params.min_coverage)
        print(summary_row(configuration.label, summary))
        if configuration.label == DEFAULT_LABEL:
            default = summary
    dense = None
    dense_default = None
    if embedder is not None:
        dense = dense_ranking(settings, index, embedder, params, full and not blind)
        for configuration in DENSE_CONFIGURATIONS[:1] if blind else DENSE_CONFIGURATIONS + extra:
            changed = replace(params, **configuration.changes)
            variant = variant_index(index, configuration.method, changed)
            summary = set_summary(questions, variant, params.min_coverage,
                               dense.with_params(changed))
            print(summary_row(configuration.label, summary), flush=True)
            if configuration.label == DENSE_DEFAULT:
                dense_default = summary
        dense.save()  # the candidates' vectors, for the next run
    print("(para3/paraM, pt@3/ptM: hit@3/MRR of paraphrase and Portuguese questions; "
          "refU: uncovered refused, refC: covered wrongly refused, fbC: covered answered "
          "from a whole file)")

    print(f"\ncoverage bars ({DEFAULT_METHOD}; concept coverage of the question by the top "
          f"{TOP_K} passages together, and by the best file): refused uncovered / covered")
    print(f"{'passage bar':>12}" + "".join(f"{f'file {bar:.2f}':>14}" for bar in FILE_BARS)
          + f"{'hit@3':>7}{'MRR':>6}")
    by_file_bar = {file_bar: variant_index(index, DEFAULT_METHOD,
                                      replace(params, min_file_coverage=file_bar))
                   for file_bar in FILE_BARS}
    for bar in PASSAGE_BARS:
        cells = []
        for file_bar, variant in by_file_bar.items():
            refusals = set_summary(questions, variant, bar).refusals
            mark = "*" if (bar, file_bar) == (params.min_coverage,
                                             params.min_file_coverage) else " "
            cells.append(f"{refusals.uncovered_refused:>4}/{refusals.uncovered:<3}"
                         f"{refusals.covered_refused:>3}/{refusals.covered}{mark}")
        overall = set_summary(questions, index, bar).overall
        print(f"{bar:>12.2f}" + "".join(f"{cell:>14}" for cell in cells)
              + f"{overall.hit_at(3):>7.2f}{overall.mrr:>6.2f}")
    print("(* the bars in use)")
    if dense is not None:
        print_dense_refusals(questions, index, dense, params)
    assert default is not None  # the default configuration is always in CONFIGURATIONS
    if blind:
        print_blind_targets(((DEFAULT_LABEL, default), (DENSE_DEFAULT, dense_default)))
    elif default.misses:
        print(f"\nno hit in the top 10 (default): {', '.join(default.misses)}")
    if diagnose and not blind:
        print_paraphrase_failures(questions, index)
    return default, dense_default


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
