"""One benchmark phase in a fresh process: `python -m bench.phase PHASE DOCS CACHE QUERIES`.

Running each phase in its own process makes its peak memory (ru_maxrss) its own and keeps
one phase from warming another's in-memory state. Prints one JSON object on stdout.
Phases: full (rebuild), warm (valid cache, then queries), incremental, naive (baseline:
docai's loaders, TF-IDF refit), plain (baseline for real folders: stdlib HTML parser,
character windows, TF-IDF refit).
"""

from __future__ import annotations

import json
import resource
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter, perf_counter_ns
from typing import Any

import numpy as np

from bench.naive import build_naive
from bench.plain import build_plain
from docai.retrieval.search_index import open_index
from docai.settings import Settings

TOP_K = 3


def main(argv: list[str]) -> int:
    phase, docs, cache_dir, queries_file = argv
    questions = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    settings = Settings(docs_dir=Path(docs), cache_dir=Path(cache_dir), rebuild=phase == "full")
    result: dict[str, Any]
    cpu_before = _cpu_seconds()
    if phase == "naive":
        started = perf_counter()
        naive = build_naive(Path(docs), settings.chunking)
        result = {"seconds": perf_counter() - started, "chunks": naive.size}
        result |= _latencies(lambda q: naive.search(q, TOP_K), questions)
    elif phase == "plain":
        started = perf_counter()
        plain = build_plain(Path(docs))
        result = {"seconds": perf_counter() - started, "chunks": plain.size}
        result |= _latencies(lambda q: plain.search(q, TOP_K), questions)
    else:
        started = perf_counter()
        index, report = open_index(settings)
        result = {
            "seconds": perf_counter() - started,
            "files": report.files,
            "chunks": report.chunks,
            "tokens": report.tokens,
            "new": report.new,
            "changed": report.changed,
            "unchanged": report.unchanged,
            "cache_status": report.cache_status,
            "timings": {
                "scan": report.timings.scan, "parse": report.timings.parse,
                "index": report.timings.index, "save": report.timings.save,
            },
        }
        if phase == "warm":
            result |= _latencies(lambda q: index.search(q, TOP_K), questions)
    result["cpu_seconds"] = _cpu_seconds() - cpu_before
    kib = 1024  # ru_maxrss is in KiB on Linux
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kib / 1e6
    result["workers_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib / 1e6
    print(json.dumps(result))
    return 0


def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (the parse workers)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _latencies(search: Callable[[str], object], questions: list[str]) -> dict[str, float]:
    elapsed = []
    for question in questions:
        started = perf_counter_ns()
        search(question)
        elapsed.append((perf_counter_ns() - started) / 1e6)
    p50, p95 = np.percentile(elapsed, [50, 95])
    return {"p50_ms": float(p50), "p95_ms": float(p95)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
