"""One shared-store benchmark phase in a fresh process (its own peak memory), printing one
JSON object: `python -m bench.store_phase PHASE URL DOCS QUERIES [CLIENTS]`.

Phases: index (the docs folder into collection "bench"), words (warm words-only queries),
hybrid (the same with dense re-ranking over stored vectors, questions embedded by a fake
model: latency only), clients (CLIENTS processes querying at once: throughput), roundtrips
and dense_roundtrips (words only or dense, through a proxy counting round trips, each
packet delayed by CLIENTS seconds). `BENCH_EF_SEARCH` sets the HNSW search list.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from bench.phase import _latencies, own_peak_mb
from docai.retrieval import verdict
from docai.settings import Settings

COLLECTION = "bench"
TOP_K = 3
DIMENSION = 384  # multilingual E5 small's, the bundled model's


class FakeEmbedder:
    """Unit vectors of the right size from a hash of the text: what a real model's latency
    would add is not measured here (docs/benchmarks.md gives the model's own figures)."""

    name = "bench/fake-384"

    def _vectors(self, texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            row = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._vectors(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._vectors(texts)

    def close(self) -> None:
        pass


def _open(url: str, dense: bool) -> tuple[Any, Any]:
    from docai.store import vector_queries
    from docai.store.dense import StoreDense
    from docai.store.search import StoreIndex

    if "BENCH_EF_SEARCH" in os.environ:  # the search list's sweep (`bench.store`)
        vector_queries.EF_SEARCH = int(os.environ["BENCH_EF_SEARCH"])

    index = StoreIndex(url, COLLECTION)
    embedder = FakeEmbedder()
    ranking = StoreDense(index, embedder, index.params, print) if dense else None  # type: ignore[arg-type]
    return index, ranking


def _client(url: str, questions: list[str], rounds: int) -> int:
    index, _ = _open(url, False)
    for _ in range(rounds):
        for question in questions:
            verdict.search(index, question, TOP_K)
    index.close()
    return rounds * len(questions)


def main(argv: list[str]) -> int:
    phase, url, docs, queries_file, *rest = argv
    questions = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    result: dict[str, Any] = {}
    if phase == "index":
        from docai.store.indexer import index_collection

        started = perf_counter()
        report = index_collection(Settings(docs_dir=Path(docs), store=url), COLLECTION)
        result = {"seconds": perf_counter() - started, "chunks": report.chunks}
    elif phase in ("words", "hybrid"):
        index, ranking = _open(url, phase == "hybrid")
        for question in questions[:10]:  # warm: connection, stemmers, plans
            verdict.search(index, question, TOP_K, dense=ranking)
        result = _latencies(lambda q: verdict.search(index, q, TOP_K, dense=ranking), questions)
    elif phase in ("roundtrips", "dense_roundtrips"):  # through a proxy adding `rest[0]` s
        from bench.store_proxy import DelayProxy, proxied_url, socket_of

        with DelayProxy(socket_of(url), float(rest[0])) as proxy:
            index, ranking = _open(proxied_url(url, proxy.port), phase == "dense_roundtrips")
            for question in questions[:10]:
                verdict.search(index, question, TOP_K, dense=ranking)
            before = proxy.round_trips
            asked = questions[:50]
            result = _latencies(lambda q: verdict.search(index, q, TOP_K, dense=ranking),
                                asked)
            result["round_trips"] = (proxy.round_trips - before) / len(asked)
            index.close()
    elif phase == "dense_results":  # the dense path's top passages, to compare two runs
        index, ranking = _open(url, True)
        result = {"results": [[(hit.chunk.source, hit.chunk.ordinal) for hit in
                               verdict.search(index, q, TOP_K, dense=ranking)]
                              for q in questions[:50]]}
    elif phase == "clients":
        clients = int(rest[0])
        with multiprocessing.get_context("spawn").Pool(clients) as pool:
            pool.starmap(_client, [(url, questions[:5], 1)] * clients)  # warm
            started = perf_counter()
            done = pool.starmap(_client, [(url, questions, 1)] * clients)
            seconds = perf_counter() - started
        result = {"clients": clients, "queries": sum(done), "seconds": seconds,
                  "queries_per_s": sum(done) / seconds}
    result["peak_mb"] = own_peak_mb()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
