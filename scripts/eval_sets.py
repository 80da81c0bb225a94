"""The evaluation's sets, their roles and targets, the configurations it compares, and how a
set's docs are fetched and its index opened (`scripts/eval.py` and its sweep share them)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_eval_docs import ALL_DOCS, DATA_DIR, fetch  # noqa: E402

from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.cli.commands.evaluate import load_questions  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.evaluation import Question  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
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


def fetch_docs_of(eval_set: EvalSet) -> None:
    for docs in ALL_DOCS:
        if docs.target == eval_set.docs:
            fetch(docs)


def open_set(
    eval_set: EvalSet, params: RetrievalParams, label: str
) -> tuple[tuple[Question, ...], Settings, SearchIndex] | None:
    """The set's questions, settings and index (its header printed, labelled `label`), or
    None when the set is broken (its problems printed)."""
    questions = load_questions(eval_set.qa_file)
    settings = Settings(docs_dir=eval_set.docs, cache_dir=DATA_DIR / "cache")
    index, report = open_index(settings)
    index = variant_index(index, DEFAULT_METHOD, params)
    print(f"\n== {eval_set.name} [{label}]: {eval_set.qa_file.relative_to(ROOT)} "
          f"({len(questions)} questions) over {eval_set.docs.relative_to(ROOT)} "
          f"({report.files} files, {report.chunks} chunks)")
    problems = evaluation.check_gold(questions, index.chunks)
    if problems:
        print("\n".join(problems))
        return None
    return questions, settings, index


def variant_index(index: SearchIndex, method: str, params: RetrievalParams) -> SearchIndex:
    """The same chunks and counts ranked another way (no re-analysis needed)."""
    if method == index.method and params == index.params:
        return index
    return SearchIndex(index.chunks, index.matrix, method, params=params)
