"""`python -m bench [--quick | --real-only | --dense-only] [--no-real] [--no-dense]`: build,
reload, update and query docai indexes of ~1k, 10k and 100k generated chunks, resources/docs
and a folder of real documentation, beside a baseline that refits everything; then what
dense re-ranking costs on the generated corpora (`bench/dense.py`).

Per corpus, in one run: full build, warm start (valid cache), incremental update after one
file changes, query latency p50/p95 over 200 varied questions, peak memory per phase, and
ingestion throughput; the time of a whole `docai search` process on the built index (spawn
to exit, the median of a few runs), what a user waits for; then the baseline and its
query latency. The generated corpora are measured against the naive refit (docai's loaders,
scikit-learn TfidfVectorizer); the real folder (thirteen pinned Debian and PyPI
documentation packages of the evaluation, HTML and Markdown) against the plain one (stdlib
HTML parser, character windows, TfidfVectorizer; `bench/plain.py`). Prints a Markdown table
and the ratios the targets are about, and writes everything to bench/results.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

from bench import dense
from bench.corpus import queries, write_corpus

# About how many chunks one generated page yields (calibrated on the generator).
CHUNKS_PER_PAGE = 27
SIZES = (("1k", 1_000), ("10k", 10_000), ("100k", 100_000))
QUESTIONS = 200
RESOURCES = Path("resources/docs")
RESULTS = Path(__file__).parent / "results.json"
TARGETS = (
    ("warm / full", "warm_ratio", 0.05),
    ("incremental / full", "incremental_ratio", 0.10),
    ("full / naive", "naive_ratio", 1.0),
)
P50_TARGET_MS = 10.0
# The real folder: the evaluation's collections (scripts/fetch_eval_docs.py fetches each one,
# pinned and checked, into tests/eval/data/). A fixed list, so runs stay comparable when the
# evaluation gains collections.
REAL_NAME = "docs reais"
REAL_DOCS = (
    "mkdocs", "click", "borg", "fish", "flask", "pytest", "sphinx", "jinja", "requests",
    "hatch", "black", "werkzeug", "starlette",
)
# A `docai search` process on a built index: spawn to exit, the median of these runs (after
# one untimed run), against this target.
SEARCH_RUNS = 5
SEARCH_TARGET_S = 0.5
SEARCH_QUESTION = "how do I register an error handler for a 404?"
SEARCH_KINDS = (("search_process", "docai search"), ("search_process_dense", "docai search densa"))


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--quick", action="store_true", help="generated corpora: only 1k and 10k")
    choice.add_argument("--real-only", action="store_true", help="only the real-docs folder")
    choice.add_argument("--dense-only", action="store_true",
                        help="only the dense phases (the 10k and 100k corpora built once)")
    parser.add_argument("--no-real", action="store_true", help="without the real-docs folder")
    parser.add_argument("--no-dense", action="store_true",
                        help="without the dense phases (embedding model; about 5 minutes)")
    args = parser.parse_args()
    if args.dense_only and args.no_dense:
        parser.error("--dense-only and --no-dense exclude each other")
    sizes = () if args.real_only else SIZES[:2] if args.quick else SIZES
    if args.dense_only:
        sizes = SIZES[1:]
    rows = []
    built: dict[str, dense.Corpus] = {}
    dense_result = None
    with tempfile.TemporaryDirectory(prefix="docai-bench-") as scratch:
        work = Path(scratch)
        questions_file = work / "questions.json"
        questions_file.write_text(json.dumps(queries(QUESTIONS)), encoding="utf-8")
        corpora: list[tuple[str, Callable[[Path], object]]] = [
            (name, partial(write_corpus, pages=round(target / CHUNKS_PER_PAGE)))
            for name, target in sizes
        ]
        dense_only = args.dense_only
        if not (args.real_only or dense_only) and any(p.is_file() for p in RESOURCES.rglob("*")):
            corpora.insert(0, ("resources/docs", partial(shutil.copytree, RESOURCES)))
        if not (args.no_real or dense_only):
            corpora.append((REAL_NAME, _copy_real_docs))
        for name, make in corpora:
            _say(f"[{name}] gerando corpus…")
            docs = work / name.replace("/", "-").replace(" ", "-") / "docs"
            make(docs)
            built[name] = dense.Corpus(name, docs, docs.parent / "cache")
            if dense_only:
                _say(f"[{name}] build completo…")
                _phase("full", docs, docs.parent / "cache", questions_file)
                continue
            baseline = "plain" if name == REAL_NAME else "naive"
            rows.append(_measure(name, docs, docs.parent / "cache", questions_file, baseline))
        generated = [built[name] for name, _ in sizes]
        if not args.no_dense and generated:
            small = built.get("10k", generated[0])
            dense_result = dense.measure(small, generated[-1])
    _save(rows, dense_result, keep_corpora=args.dense_only)
    if rows:
        print(_table(rows))
        print()
        print(_ratios(rows))
    if dense_result is not None:
        print()
        print("\n".join(dense.lines(dense_result)))
    print(f"\n(detalhes em {RESULTS})")
    return 0


def _save(rows: list[dict[str, Any]], dense_result: object, *, keep_corpora: bool) -> None:
    """Write RESULTS; with `keep_corpora` (a dense-only run), the corpora of the last run stay."""
    if keep_corpora:
        with contextlib.suppress(OSError, ValueError, KeyError):  # none yet: nothing to keep
            last = json.loads(RESULTS.read_text(encoding="utf-8"))
            rows = last if isinstance(last, list) else last["corpora"]  # list: the older layout
    RESULTS.write_text(json.dumps({"corpora": rows, "dense": dense_result}, indent=2),
                       encoding="utf-8")


def _copy_real_docs(target: Path) -> None:
    """The evaluation's collections, fetched (pinned, checked) if missing, one sub-folder each."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from fetch_eval_docs import ALL_DOCS, fetch

    pinned = {docs.name: docs for docs in ALL_DOCS}
    for name in REAL_DOCS:
        shutil.copytree(fetch(pinned[name]), target / name)


def _measure(
    name: str, docs: Path, cache_dir: Path, questions: Path, baseline: str
) -> dict[str, Any]:
    files = sorted(path for path in docs.rglob("*") if path.is_file())
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    _say(f"[{name}] build completo…")
    full = _phase("full", docs, cache_dir, questions)
    # Right after the full build, so both see the same load on a shared machine.
    _say(f"[{name}] linha de base ({baseline})…")
    naive = _phase(baseline, docs, cache_dir, questions)
    _say(f"[{name}] início com cache válido + consultas…")
    warm = _phase("warm", docs, cache_dir, questions)
    _say(f"[{name}] processo `docai search` com cache válido…")
    search_process = _search_process(docs, cache_dir, dense=False)
    _say(f"[{name}] processo `docai search` com busca densa (candidatas já embutidas)…")
    search_dense = _search_process(docs, cache_dir, dense=True)
    changed = files[len(files) // 2]
    with changed.open("a", encoding="utf-8") as handle:
        handle.write("\n\n## Nota do benchmark\n\nUm parágrafo novo para a atualização.\n")
    _say(f"[{name}] atualização incremental ({changed.name})…")
    incremental = _phase("incremental", docs, cache_dir, questions)
    return {
        "corpus": name,
        "files": len(files),
        "megabytes": megabytes,
        "chunks": full["chunks"],
        "full": full,
        "warm": warm,
        "incremental": incremental,
        "naive": naive,
        "baseline": baseline,
        "search_process": search_process,
        "search_process_dense": search_dense,
        "files_per_s": len(files) / full["seconds"],
        "mb_per_s": megabytes / full["seconds"],
        "warm_ratio": warm["seconds"] / full["seconds"],
        "incremental_ratio": incremental["seconds"] / full["seconds"],
        "naive_ratio": full["seconds"] / naive["seconds"],
        "incremental_changed": incremental["changed"],
    }


def _phase(phase: str, docs: Path, cache_dir: Path, questions: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.phase", phase, str(docs), str(cache_dir), str(questions)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: a fase {phase} falhou:\n{done.stderr}")
    return json.loads(done.stdout)


def _search_process(docs: Path, cache_dir: Path, *, dense: bool) -> dict[str, Any]:
    """Wall time of `docai search QUESTION` processes on the saved index, spawn to exit:
    lexical only, or with the default dense re-ranking (the untimed first run embeds the
    question's candidates, as a user's first search would)."""
    command = [
        sys.executable, "-m", "docai", "--docs", str(docs), "--cache-dir", str(cache_dir),
        "search", SEARCH_QUESTION, "--dense", "on" if dense else "off",
    ]
    before = _snapshot(cache_dir)
    runs = []
    for attempt in range(SEARCH_RUNS + 1):
        started = perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"bench: docai search falhou:\n{done.stderr}")
        if attempt:  # the first run only warms the OS file cache
            runs.append(elapsed)
    return {
        "median_s": statistics.median(runs),
        "best_s": min(runs),
        "runs_s": runs,
        # A changed cache means the search rebuilt the index (e.g. the code changed).
        "rebuilt": _snapshot(cache_dir) != before,
    }


def _snapshot(folder: Path) -> dict[str, int]:
    """The index's files (not the window vectors, which a first dense search adds to)."""
    return {str(path): path.stat().st_mtime_ns for path in folder.rglob("*")
            if path.is_file() and not path.name.startswith("embeddings-")}


def _table(rows: list[dict[str, Any]]) -> str:
    header = (
        "| corpus | arquivos | MB | trechos | build completo (CPU) | arquivos/s | MB/s "
        "| início c/ cache | processo `docai search` | incremental | consulta p50 / p95 "
        "| pico RAM build / início | linha de base: build (CPU) | linha de base: p50 / p95 |"
    )
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for row in rows:
        full, warm, incremental, naive = (row[k] for k in ("full", "warm", "incremental", "naive"))
        build_peak = max(full["peak_mb"], full["workers_peak_mb"])
        lines.append(
            f"| {row['corpus']} | {row['files']} | {row['megabytes']:.1f} | {row['chunks']} "
            f"| {full['seconds']:.2f} s ({full['cpu_seconds']:.0f} s) "
            f"| {row['files_per_s']:.0f} | {row['mb_per_s']:.2f} "
            f"| {warm['seconds']:.2f} s | {row['search_process']['median_s']:.2f} s"
            f"{_dense_search(row)} "
            f"| {incremental['seconds']:.2f} s "
            f"| {warm['p50_ms']:.2f} / {warm['p95_ms']:.2f} ms "
            f"| {build_peak:.0f} / {warm['peak_mb']:.0f} MB "
            f"| {naive['seconds']:.2f} s ({naive['cpu_seconds']:.0f} s, {row['baseline']}) "
            f"| {naive['p50_ms']:.2f} / {naive['p95_ms']:.2f} ms |"
        )
    return "\n".join(lines)


def _dense_search(row: dict[str, Any]) -> str:
    dense = row.get("search_process_dense")
    return f" / {dense['median_s']:.2f} s (densa)" if dense else ""


def _ratios(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        parts = [
            f"{label.replace('naive', row['baseline'])} = {row[key]:.3f} "
            f"({'ok' if row[key] <= limit else 'ACIMA'} ≤ {limit:g})"
            for label, key, limit in TARGETS
        ]
        p50 = row["warm"]["p50_ms"]
        parts.append(f"p50 {p50:.2f} ms ({'ok' if p50 < P50_TARGET_MS else 'ACIMA'} < 10)")
        for key, label in SEARCH_KINDS:
            if (search := row.get(key)) is None:  # a row of an older run
                continue
            verdict = "ok" if search["median_s"] < SEARCH_TARGET_S else "ACIMA"
            target = f" ({verdict} < {SEARCH_TARGET_S:g} s)" if row["corpus"] == REAL_NAME else ""
            parts.append(
                f"{label} {search['median_s']:.2f} s (melhor {search['best_s']:.2f} s){target}"
            )
        lines.append(f"{row['corpus']}: " + "; ".join(parts))
        for key, label in SEARCH_KINDS:
            if row.get(key, {}).get("rebuilt"):
                lines.append(f"  AVISO: o processo {label} reconstruiu o índice")
        for phase in ("warm", "incremental"):
            if row[phase]["cache_status"]:  # e.g. the code changed between phases
                lines.append(f"  AVISO: {phase} não usou o cache: {row[phase]['cache_status']}")
    return "\n".join(lines)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
