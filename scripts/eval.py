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

import ast
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_eval_docs import ALL_DOCS, DATA_DIR, FetchError, fetch  # noqa: E402

from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.cli.commands.evaluate import load_questions  # noqa: E402
from docai.index import vector_store  # noqa: E402
from docai.records import Chunk, Hit  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking, open_dense_ranking  # noqa: E402
from docai.retrieval.embedders import BundledE5, Embedder  # noqa: E402
from docai.retrieval.evaluation import Outcome, Question, Summary  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
from docai.retrieval.verdict import NotCovered, Passages, retrieve, search  # noqa: E402
from docai.retrieval.window_vectors import WindowVectors  # noqa: E402
from docai.settings import Settings  # noqa: E402

DEFAULT_METHOD = Settings().retrieval
TOP_K = Settings().top_k
MAX_FILE_TOKENS = prompt_budget(Settings().num_ctx)  # what `docai ask` passes
PASSAGE_BARS = (0.0, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
FILE_BARS = (0.7, 0.8, 0.9, 1.01)  # 1.01: never fall back


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
    role: str  # "tuned", "enforced" (tuned, targets enforced), "held-out" or "blind"


def _fetched(name: str, role: str) -> EvalSet:
    """The set `tests/eval/<name>.jsonl` over the docs `fetch_eval_docs` puts in `<name>/`."""
    return EvalSet(name, ROOT / f"tests/eval/{name}.jsonl", DATA_DIR / name, role)


SETS = (
    EvalSet("docai", ROOT / "tests/eval/docai.jsonl", ROOT / "resources/docs", "tuned"),
    _fetched("mkdocs", "enforced"),
    *(_fetched(name, "tuned") for name in ("click", "borg", "fish", "flask", "pytest", "sphinx")),
    _fetched("jinja", "held-out"),
    *(_fetched(name, "tuned") for name in ("requests", "hatch", "black")),
    _fetched("werkzeug", "held-out"),
    _fetched("starlette", "held-out"),
    # Written in session 7 for dense retrieval, scored once in session 8 with its defaults.
    _fetched("debian-handbook", "blind"),
    _fetched("mypy", "blind"),
    # Written in session 9 and scored once with session 8's defaults, unchanged.
    _fetched("debian-reference", "blind"),
    _fetched("setuptools", "blind"),
    # Written blind for issue 22 (to choose the retrieval defaults), from the pages alone;
    # not yet scored.
    _fetched("debian-faq", "blind"),
    _fetched("cpp-annotations", "blind"),
    _fetched("foca-linux", "blind"),
)


@dataclass(frozen=True, slots=True)
class BlindTargets:
    """The dense-retrieval issue's targets, which its blind sets are checked against."""

    hit_at_3: float = 0.75
    mrr: float = 0.65
    paraphrase_hit_at_3: float = 0.55
    pt_en_gap: float = 0.05  # Portuguese hit@3 at most this far from English
    uncovered_refused: float = 0.80
    covered_refused: float = 3 / 91  # the "at most 3 of 91", scaled to the set


BLIND_TARGETS = BlindTargets()


@dataclass(frozen=True, slots=True)
class Configuration:
    label: str
    method: str
    changes: dict[str, Any]  # `RetrievalParams` fields changed from the run's params


REFERENCE_LABEL = "bm25s+snowball (ref)"
DEFAULT_LABEL = f"{DEFAULT_METHOD} (default)"  # the lexical default, ranked alone
CONFIGURATIONS = (
    Configuration("tfidf (baseline)", "tfidf", {}),
    Configuration("bm25 b=0.75", "bm25", {"bm25_b": 0.75}),
    Configuration("bm25", "bm25", {}),
    Configuration(DEFAULT_LABEL, DEFAULT_METHOD, {}),
)


# The sets dense retrieval is tuned on (each collection embedded once, vectors cached).
DENSE_SETS = ("docai", "mkdocs", "click", "flask", "borg")
# The sets `make eval` scores the dense default on with the real model (--dense-ci), pooled:
# the blind sets the defaults were chosen on (docs/evaluation.md), the three whose
# candidates a cold CI machine embeds in minutes (3,300 windows at 50 candidates: about 6
# minutes on 2 quiet cores; all seven blind sets would take 35).
DENSE_CI_SETS = ("mypy", "debian-faq", "setuptools")
DENSE_DEFAULT = "dense (default)"
DENSE_CONFIGURATIONS = (
    Configuration(DENSE_DEFAULT, DEFAULT_METHOD, {}),
    Configuration("dense order only", DEFAULT_METHOD, {"rerank_weights": (0.0, 1.0)}),
    Configuration("dense cand=10", DEFAULT_METHOD, {"dense_candidates": 10}),
    Configuration("dense cand=30", DEFAULT_METHOD, {"dense_candidates": 30}),
    Configuration("dense rrf k=60", DEFAULT_METHOD, {"dense_rrf_k": 60}),
    Configuration("dense rrf k=5", DEFAULT_METHOD, {"dense_rrf_k": 5}),
    Configuration("dense w=1:1", DEFAULT_METHOD, {"rerank_weights": (1.0, 1.0)}),
    Configuration("dense w=2:1", DEFAULT_METHOD, {"rerank_weights": (2.0, 1.0)}),
)
# Also ranking the whole collection: only with --dense-full (every window embedded).
DENSE_FULL_CONFIGURATIONS = (
    Configuration("dense +full 0.5", DEFAULT_METHOD, {"dense_full_weight": 0.5}),
    Configuration("dense +full 1", DEFAULT_METHOD, {"dense_full_weight": 1.0}),
)
# Other window sizes: only with --dense-windows (each embeds the candidates anew).
DENSE_WINDOW_CONFIGURATIONS = (
    Configuration("dense win=400", DEFAULT_METHOD, {"window_chars": 400}),
    Configuration("dense win=1000", DEFAULT_METHOD, {"window_chars": 1000}),
    Configuration("dense win=600+150", DEFAULT_METHOD, {"window_overlap": 150}),
)
# (refuse below, accept above, accept down to coverage): the dense refusal rules swept.
DENSE_REFUSALS = (
    (0.0, 1.01, 0.0), (0.76, 1.01, 0.0), (0.78, 1.01, 0.0), (0.80, 1.01, 0.0),
    (0.0, 0.86, 0.4), (0.0, 0.88, 0.4), (0.78, 0.86, 0.4), (0.78, 0.88, 0.5),
)


def parse_params(argv: Sequence[str]) -> RetrievalParams:
    """`DEFAULT_PARAMS` with each `--param NAME=VALUE` of `argv` applied."""
    known = [field.name for field in fields(RetrievalParams)]
    changes: dict[str, Any] = {}
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag != "--param":
            continue
        name, _, literal = value.partition("=")
        if name not in known:
            raise SystemExit(f"eval: unknown parameter {name!r} (one of {', '.join(known)})")
        changes[name] = ast.literal_eval(literal)
    return replace(DEFAULT_PARAMS, **changes)


def main(argv: Sequence[str] = ()) -> int:
    if "--sweep" in argv:
        import eval_sweep

        return eval_sweep.run(argv, BundledE5())
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
            _fetch_docs_of(eval_set)
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


def _fetch_docs_of(eval_set: EvalSet) -> None:
    for docs in ALL_DOCS:
        if docs.target == eval_set.docs:
            fetch(docs)


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
    opened = _open_set(eval_set, params, eval_set.role)
    if opened is None:
        return None
    questions, settings, index = opened

    print(f"\n{'configuration':<20}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}{'fbC':>5}")
    default = None
    print(_row(REFERENCE_LABEL, _reference_summary(questions, index.chunks)))
    for configuration in CONFIGURATIONS:
        variant = _variant(index, configuration.method, replace(params, **configuration.changes))
        summary = _summary(questions, variant, params.min_coverage)
        print(_row(configuration.label, summary))
        if configuration.label == DEFAULT_LABEL:
            default = summary
    dense = None
    dense_default = None
    if embedder is not None:
        dense = _dense_ranking(settings, index, embedder, params, full and not blind)
        for configuration in DENSE_CONFIGURATIONS[:1] if blind else DENSE_CONFIGURATIONS + extra:
            changed = replace(params, **configuration.changes)
            variant = _variant(index, configuration.method, changed)
            summary = _summary(questions, variant, params.min_coverage,
                               dense.with_params(changed))
            print(_row(configuration.label, summary), flush=True)
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
    by_file_bar = {file_bar: _variant(index, DEFAULT_METHOD,
                                      replace(params, min_file_coverage=file_bar))
                   for file_bar in FILE_BARS}
    for bar in PASSAGE_BARS:
        cells = []
        for file_bar, variant in by_file_bar.items():
            refusals = _summary(questions, variant, bar).refusals
            mark = "*" if (bar, file_bar) == (params.min_coverage,
                                             params.min_file_coverage) else " "
            cells.append(f"{refusals.uncovered_refused:>4}/{refusals.uncovered:<3}"
                         f"{refusals.covered_refused:>3}/{refusals.covered}{mark}")
        overall = _summary(questions, index, bar).overall
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


def _open_set(
    eval_set: EvalSet, params: RetrievalParams, label: str
) -> tuple[tuple[Question, ...], Settings, SearchIndex] | None:
    """The set's questions, settings and index (its header printed, labelled `label`), or
    None when the set is broken (its problems printed)."""
    questions = load_questions(eval_set.qa_file)
    settings = Settings(docs_dir=eval_set.docs, cache_dir=DATA_DIR / "cache")
    index, report = open_index(settings)
    index = _variant(index, DEFAULT_METHOD, params)
    print(f"\n== {eval_set.name} [{label}]: {eval_set.qa_file.relative_to(ROOT)} "
          f"({len(questions)} questions) over {eval_set.docs.relative_to(ROOT)} "
          f"({report.files} files, {report.chunks} chunks)")
    problems = evaluation.check_gold(questions, index.chunks)
    if problems:
        print("\n".join(problems))
        return None
    return questions, settings, index


def run_dense_check(
    eval_set: EvalSet, params: RetrievalParams, embedder: Embedder,
) -> tuple[list[Outcome], list[Outcome]] | None:
    """Print the set's lexical and dense defaults side by side (the dense one as from a fresh
    cache: no whole-collection ranking, every candidate embedded); their outcomes, for
    the pooled check. None when the set is broken."""
    opened = _open_set(eval_set, params, "dense check")
    if opened is None:
        return None
    questions, settings, index = opened
    lexical = _outcomes(questions, index, params.min_coverage)
    started = time.perf_counter()
    fresh = replace(params, dense_full_weight=0.0, dense_question_windows=10**9)
    dense = _dense_ranking(settings, index, embedder, fresh, full=False)
    dense_default = _outcomes(questions, index, params.min_coverage, dense)
    elapsed = time.perf_counter() - started
    dense.save()
    print(f"\n{'configuration':<20}{'hit@1':>7}{'hit@3':>7}{'hit@10':>7}{'MRR':>7}"
          f"{'para3':>7}{'paraM':>7}{'pt@3':>7}{'ptM':>7}{'refU':>7}{'refC':>7}{'fbC':>5}")
    print(_row(DEFAULT_LABEL, evaluation.summarise(lexical)))
    print(_row(DENSE_DEFAULT, evaluation.summarise(dense_default)))
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
    print(_row(DEFAULT_LABEL, lexical))
    print(_row(DENSE_DEFAULT, dense))
    dropped = []
    for metric, lexical_value, dense_value in (
        ("hit@3", lexical.overall.hit_at(3), dense.overall.hit_at(3)),
        ("MRR@10", lexical.overall.mrr, dense.overall.mrr),
    ):
        if dense_value < lexical_value:
            dropped.append(f"pooled: dense default {metric} {dense_value:.3f} < "
                           f"lexical default {lexical_value:.3f}")
    return dropped


def _dense_ranking(
    settings: Settings, index: SearchIndex, embedder: Embedder, params: RetrievalParams,
    full: bool,
) -> DenseRanking:
    """The dense ranking of the set, its question vectors kept on disk too; with `full`,
    every window embedded first."""
    cache_dir = settings.resolved_cache_dir()
    stored = _StoredQueries(embedder, vector_store.store_path(cache_dir, embedder.name + "?q"))
    dense = open_dense_ranking(index.chunks, stored, cache_dir, params=params, warn=print)
    if full:
        started = time.perf_counter()
        report = dense.embed_pending(prune=False)
        print(f"(whole collection embedded: {report.embedded} new windows in "
              f"{time.perf_counter() - started:.0f} s)")
    return dense


class _StoredQueries:
    """An embedder whose question vectors are also kept on disk: scoring a set embeds
    each question once, not once per run."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self._inner = inner
        self._queries = WindowVectors(path, inner.name + "?q")

    @property
    def name(self) -> str:
        return self._inner.name

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        keys = [vector_store.checksum(text) for text in texts]
        missing = [text for text, key in zip(texts, keys, strict=True)
                   if key in self._queries.missing([key])]
        if missing:
            self._queries.add([vector_store.checksum(t) for t in missing],
                              self._inner.embed_queries(missing))
            self._queries.save()
        return self._queries.get(keys)

    def close(self) -> None:
        self._inner.close()


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
        summary = _summary(questions, _variant(index, DEFAULT_METHOD, changed),
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


def _reference_summary(questions: Sequence[Question], chunks: Sequence[Chunk]) -> Summary:
    """The issue's yardstick: standard BM25 (bm25s defaults) with English Snowball stems and
    stop words over the same chunks, ranking only (it never refuses)."""
    stemmer = Stemmer.Stemmer("english")

    def tokens(texts: list[str]) -> object:
        return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)

    retriever = bm25s.BM25()
    retriever.index(tokens([chunk.text for chunk in chunks]), show_progress=False)

    def rank(question: str, k: int) -> list[Hit]:
        found, scores = retriever.retrieve(tokens([question]), k=min(k, len(chunks)),
                                           show_progress=False)
        return [Hit(chunks[int(row)], float(score))
                for row, score in zip(found[0], scores[0], strict=True) if score > 0]

    outcomes = evaluation.evaluate(questions, rank, lambda question: Passages(()))
    return evaluation.summarise(outcomes)


def _variant(index: SearchIndex, method: str, params: RetrievalParams) -> SearchIndex:
    """The same chunks and counts ranked another way (no re-analysis needed)."""
    if method == index.method and params == index.params:
        return index
    return SearchIndex(index.chunks, index.matrix, method, params=params)


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


def _summary(
    questions: Sequence[Question], index: SearchIndex, bar: float,
    dense: DenseRanking | None = None,
) -> Summary:
    """Figures of `index` (re-ranked by `dense` when given) with the passage bar `bar` (the
    file bar is the index's own)."""
    return evaluation.summarise(_outcomes(questions, index, bar, dense))


def _outcomes(
    questions: Sequence[Question], index: SearchIndex, bar: float,
    dense: DenseRanking | None = None,
) -> list[Outcome]:
    """Each question's outcome, as `_summary` scores them."""
    return evaluation.evaluate(
        questions,
        lambda q, k: search(index, q, k, 0.0, dense),
        lambda q: retrieve(index, q, TOP_K, bar, dense, max_file_tokens=MAX_FILE_TOKENS),
    )


def _row(label: str, summary: Summary) -> str:
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
