"""One benchmark phase in a fresh process: `python -m bench.phase PHASE DOCS CACHE QUERIES`.

Running each phase in its own process makes its peak memory its own (`own_peak_mb`) and
keeps one phase from warming another's in-memory state. Prints one JSON object on stdout.
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

from docai.retrieval.search_index import open_index
from docai.settings import Settings

TOP_K = 3


def own_peak_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB. Not ru_maxrss: on Linux a
    process's ru_maxrss starts at its parent's peak when it was started (it survives fork
    and exec), so a phase started by a parent that once held 300 MB reports 300 MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError("VmHWM missing from /proc/self/status")


def main(argv: list[str]) -> int:
    phase, docs, cache_dir, queries_file = argv
    questions = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    settings = Settings(docs_dir=Path(docs), cache_dir=Path(cache_dir), rebuild=phase == "full")
    result: dict[str, Any]
    cpu_before = _cpu_seconds()
    if phase == "naive":
        from bench.naive import build_naive  # scikit-learn and SciPy: not in other phases

        started = perf_counter()
        naive = build_naive(Path(docs), settings.chunking)
        result = {"seconds": perf_counter() - started, "chunks": naive.size}
        result |= _latencies(lambda q: naive.search(q, TOP_K), questions)
    elif phase == "plain":
        from bench.plain import build_plain

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
    result["peak_mb"] = own_peak_mb()
    kib = 1024  # ru_maxrss is in KiB on Linux
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
