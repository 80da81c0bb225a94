"""What noticing a changed folder costs a question: `python -m bench.change_check [FILES]`.

Before each REPL question (and each MCP tool call) docai walks the docs folder and `stat`s
every file (`docai.index.freshness`), so that a file added, changed or removed since is
re-indexed first. On a large folder that walk is paid by every question, so it is measured
beside what the question costs anyway: on a folder of FILES small pages (50,000 by
default, in 100 sub-folders), the p50 of the check against the p50 of the question's own
retrieval on the same index, in one run. Prints one JSON object and a line of figures.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from statistics import median
from time import perf_counter

from bench.corpus import TECHNICAL, queries
from docai.index.freshness import folder_state
from docai.retrieval.search_index import open_index
from docai.settings import Settings

FILES = 50_000
FOLDERS = 100
CHECKS = 15
QUESTIONS = 100


def write_pages(root: Path, count: int, seed: int = 5) -> None:
    """`count` one-section Markdown pages under `root`, spread over FOLDERS sub-folders."""
    rng = random.Random(seed)
    for number in range(count):
        folder = root / f"area{number % FOLDERS:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        words = " ".join(rng.choices(TECHNICAL, k=40))
        title = " ".join(rng.sample(TECHNICAL, 2)).capitalize()
        (folder / f"pagina-{number:05d}.md").write_text(
            f"# {title} {number}\n\n## Uso\n\n{words}.\n", encoding="utf-8")


def measure(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="docai-bench-check-") as scratch:
        docs = Path(scratch) / "docs"
        write_pages(docs, count)
        settings = Settings(docs_dir=docs, cache_dir=Path(scratch) / "cache", dense=False)
        started = perf_counter()
        index, _ = open_index(settings)
        build = perf_counter() - started
        checks = []
        for _ in range(CHECKS):
            started = perf_counter()
            folder_state(settings)
            checks.append(perf_counter() - started)
        searches = []
        for question in queries(QUESTIONS):
            started = perf_counter()
            index.search(question, 3)
            searches.append(perf_counter() - started)
    check_ms, search_ms = median(checks) * 1e3, median(searches) * 1e3
    return {"files": count, "build_s": build, "check_p50_ms": check_ms,
            "search_p50_ms": search_ms, "ratio": check_ms / search_ms}


def main(argv: list[str]) -> int:
    result = measure(int(argv[0]) if argv else FILES)
    print(json.dumps(result))
    print(f"verificação da pasta antes de cada pergunta ({result['files']} arquivos): "
          f"p50 {result['check_p50_ms']:.0f} ms; a busca da pergunta: p50 "
          f"{result['search_p50_ms']:.1f} ms (razão {result['ratio']:.1f})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
