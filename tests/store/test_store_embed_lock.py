"""The embedding pass of `docai index --embed --store` runs under the collection's lock:
a second indexer started meanwhile waits, says so, and both finish. The real `docai`
processes against a real PostgreSQL, with an embedding server held on a gate so the first
pass is caught half-way (an event, not a clock)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import psycopg

from docai.retrieval import verdict
from docai.settings import Settings
from docai.store.dense import open_store_dense
from docai.store.search import StoreIndex
from tests.store.test_store_cli import DOCS, QA, run
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_embeddings import EmbeddingOllama
from tests.support.fake_ollama import Responder

WAITING = "aguardando"  # messages.STORE_WAITING_FOR_LOCK
SUMMARY = "trechos na coleção"  # messages.STORE_INDEX_SUMMARY


class GatedEmbeddings(EmbeddingOllama):
    """Embed requests wait for `gate`; `asked` is set by the first one."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.gate = threading.Event()

    def handle(self, respond: Responder, method: str, path: str, body: Any,
               headers: dict[str, str]) -> None:
        if path == "/api/embed":
            self.asked.set()
            self.gate.wait(timeout=300)
        super().handle(respond, method, path, body, headers)


def lines_of(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)


def test_a_second_indexer_waits_for_the_first_ones_embedding_pass(
    home: Path, store_url: str
) -> None:
    with GatedEmbeddings() as server:
        env = docai_env(home, server.url) | {"DOCAI_STORE_HNSW": "off"}
        args = [DOCAI, "index", "--rebuild", "--embed", "--dense", "on", "--embed-model",
                "all-minilm", "--docs", str(DOCS), "--store", store_url, "--collection", "docs"]
        first = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        assert server.asked.wait(timeout=300)  # the first is embedding, held at the gate
        second = subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        said: queue.Queue[str] = queue.Queue()
        for stream in (second.stdout, second.stderr):
            assert stream is not None
            threading.Thread(target=lines_of, args=(stream, said), daemon=True).start()
        seen = []
        while not any(WAITING in line or SUMMARY in line for line in seen):
            seen.append(said.get(timeout=300))  # it waits, or (unlocked) it indexes
        server.gate.set()
        first_out, first_err = first.communicate(timeout=300)
        second.wait(timeout=300)
    assert first.returncode == 0, first_err
    assert second.returncode == 0, seen
    assert any(WAITING in line for line in seen), seen
    assert "Pipeline" not in first_err
    listed = run(home, "store", "list", "--json", "--store", store_url)
    with psycopg.connect(store_url) as conn:
        row = conn.execute("SELECT chunks FROM docai_generations").fetchone()
    assert row is not None and f'"chunks": {row[0]}' in listed.stdout.replace(
        "\n", "").replace("  ", " ")


def dense_answers(index: StoreIndex, ranking: object, questions: list[str]) -> list[object]:
    return [[(hit.chunk.source, hit.chunk.ordinal, round(hit.score, 6)) for hit in
             verdict.search(index, question, 20, dense=ranking)]  # type: ignore[arg-type]
            for question in questions]


def test_readers_see_the_dense_answers_through_a_rebuild_of_unchanged_content(
    home: Path, store_url: str
) -> None:
    """`index --rebuild --embed` on unchanged content: every window's vector is already
    stored, so the new generation is whole the moment it is switched to; a reader never
    gets a words-only answer."""
    questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()][:10]
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        args = ("--embed", "--dense", "on", "--embed-model", "all-minilm", "--docs",
                str(DOCS), "--store", store_url, "--collection", "docs")
        done = run(home, "index", *args, env=env)
        assert done.returncode == 0, done.stderr
        settings = Settings(store=store_url, ollama_url=server.url, embed_model="all-minilm")
        index = StoreIndex(store_url, "docs")
        ranking = open_store_dense(settings, index, print)
        expected = dense_answers(index, ranking, questions)
        assert expected != dense_answers(index, None, questions)  # dense answers differ
        rebuilt = threading.Event()
        after: list[bool] = []
        wrong: list[object] = []

        def reader() -> None:
            while len(after) < 2 * len(questions):
                ended = rebuilt.is_set()
                for question, answer in zip(
                        questions, dense_answers(index, ranking, questions), strict=True):
                    if answer != expected[questions.index(question)]:
                        wrong.append((question, ended))
                    if ended:
                        after.append(True)

        thread = threading.Thread(target=reader)
        thread.start()
        again = run(home, "index", "--rebuild", *args, env=env)
        rebuilt.set()
        thread.join(timeout=600)
        index.close()
    assert again.returncode == 0, again.stderr
    assert "reconstruído" in again.stderr or "reconstruído" in again.stdout
    assert not wrong, wrong[:3]
