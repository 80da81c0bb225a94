"""Dense ranking under faults, as a user meets them in the real `docai` process: a vector
store damaged but finite, one cut short under a running REPL, an embedder whose vectors
change size mid-session, a question far longer than the model reads. Embeddings come from
the fake Ollama over HTTP (deterministic vectors)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pexpect
import pytest

from docai.index import vector_store
from docai.index.vector_store import StoredVectors
from docai.retrieval.dense import MAX_QUERY_CHARS
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_embeddings import EmbeddingOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

MODEL = "all-minilm"  # no task prompts: the fake sees the texts as they are
STORED = "ollama/" + MODEL
# Refused (its one known word is not the subject), unless damaged vectors vouch for it.
UNCOVERED = "what is the capital of France in docai"
PROMPT = "docai>"
pytestmark = pytest.mark.usefixtures("dense_on")


@pytest.fixture
def fake() -> Iterator[EmbeddingOllama]:
    with EmbeddingOllama(reply=REPLY) as server:
        yield server


def run(home: Path, url: str, *args: str | Path, stdin: str = "",
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, "--embed-model", MODEL, *args], env=docai_env(home, url),
                          input=stdin, capture_output=True, text=True, timeout=120,
                          check=False, cwd=home)


def spawn(home: Path, url: str, *args: str) -> pexpect.spawn:
    child = pexpect.spawn(DOCAI, ["--embed-model", MODEL, *args], env=docai_env(home, url),
                          encoding="utf-8", timeout=60, dimensions=(40, 160), cwd=str(home))
    child.expect(PROMPT)
    return child


def leave(child: pexpect.spawn) -> None:
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, (child.exitstatus, child.signalstatus)


def store_file(home: Path) -> Path:
    (path,) = (home / "cache").glob("*/embeddings-*.npz")
    return path


def rewrite_store(path: Path, damage: str) -> None:
    """The store as it was, its vectors damaged but still float16 and finite."""
    stored = vector_store.load(path, STORED)
    assert stored is not None and len(stored.digests)
    vectors = np.asarray(stored.vectors).copy()
    if damage == "scaled":
        vectors *= 4
    else:  # the highest exponent bit of each row's first number, flipped
        bits = vectors.view(np.uint16)
        bits[:, 0] ^= 0x4000
    assert np.isfinite(vectors).all()
    vector_store.save(path, StoredVectors(STORED, stored.digests, vectors,
                                      stored.complete_for))


@pytest.mark.parametrize("damage", ["scaled", "exponent bit"])
def test_a_damaged_but_finite_store_is_reported_and_refusal_still_holds(
    tmp_path: Path, fake: EmbeddingOllama, damage: str
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert run(tmp_path, fake.url, "--docs", docs, "index", "--embed").returncode == 0
    first = run(tmp_path, fake.url, "--docs", docs, "ask", UNCOVERED)
    assert first.returncode == 0, first.stderr
    assert fake.chat_requests == []  # refused: the docs do not cover it
    rewrite_store(store_file(tmp_path), damage)

    again = run(tmp_path, fake.url, "--docs", docs, "ask", UNCOVERED)
    assert again.returncode == 0, again.stderr
    assert fake.chat_requests == []  # still refused, never sent to the model
    assert again.stderr.count("corrompido") == 1  # reported once
    assert again.stdout == first.stdout
    # The damaged rows were embedded again and saved: the next run is quiet.
    quiet = run(tmp_path, fake.url, "--docs", docs, "ask", UNCOVERED)
    assert "corrompido" not in quiet.stderr and quiet.stdout == first.stdout


def test_a_store_cut_short_under_a_running_repl_is_reported_and_the_session_goes_on(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert run(tmp_path, fake.url, "--docs", docs, "index", "--embed").returncode == 0
    child = spawn(tmp_path, fake.url, "--docs", str(docs))
    path = store_file(tmp_path)
    os.truncate(path, 1024)  # the rows a question reads are gone (the keys were read)
    child.sendline(QUESTION)
    child.expect("corrompido ou truncado")
    child.expect_exact(REPLY)
    child.expect(PROMPT)
    child.sendline("Qual é o padrão de --num-ctx?")
    child.expect_exact(REPLY)
    child.expect(PROMPT)
    leave(child)


def test_vectors_that_change_size_mid_session_turn_dense_off_with_one_warning(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    """Questions one by one in one process (`search` reading stdin): the first embeds the
    windows of its own passages, then the server answers with vectors of another size while
    the second's passages are half embedded."""
    docs = write_docs(tmp_path / "docs")
    assert run(tmp_path, fake.url, "--docs", docs, "index", "--embed").returncode == 0
    process = subprocess.Popen(
        [DOCAI, "--embed-model", MODEL, "--docs", str(docs), "--json", "search"],
        env=docai_env(tmp_path, fake.url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("Como instalo com pipx?\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["results"]
    fake.embed_sizes = (16,)  # the server now answers with another model's vectors
    process.stdin.write("Qual é o padrão de --num-ctx e do pipx?\nE o modelo padrão?\n")
    process.stdin.close()
    out, err = process.stdout.read(), process.stderr.read() if process.stderr else ""
    assert process.wait(timeout=60) == 0, err
    assert [bool(json.loads(line)["results"]) for line in out.splitlines()] == [True, True]
    assert err.count("busca densa desativada") == 1, err
    assert "inesperado" not in err


def test_index_embed_against_an_embedder_that_alternates_sizes_ends(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs", {
        f"{topic}.md": f"# {topic.title()}\n\nComo ajustar {topic} no docai.\n"
        for topic in ("proxy", "cache", "rede", "senha", "temas", "logs", "busca", "idioma")})
    fake.embed_sizes = (8, 16)
    done = run(tmp_path, fake.url, "--docs", docs, "index", "--embed")
    assert done.stderr.count("busca densa desativada") == 1, done.stderr
    assert "inesperado" not in done.stderr
    assert len(fake.bodies("/api/embed")) == 2  # stopped at the first change


def test_a_long_question_is_embedded_only_as_far_as_the_model_reads(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    question = "como instalo o docai com pip " * 2000  # 58 KB: under the question limit
    assert run(tmp_path, fake.url, "--docs", docs, "index", "--embed").returncode == 0
    done = run(tmp_path, fake.url, "--docs", docs, "-q", "ask", "-", stdin=question)
    assert done.returncode == 0, done.stderr
    assert REPLY in done.stdout
    sent = fake.embedded_texts()
    assert sent and max(len(text) for text in sent) <= MAX_QUERY_CHARS
    assert question[:MAX_QUERY_CHARS] in sent


def test_ctrl_c_while_a_question_is_embedded_ends_the_wait(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert run(tmp_path, fake.url, "--docs", docs, "index", "--embed").returncode == 0
    with EmbeddingOllama(reply=REPLY, embed_delay=60) as slow:
        process = subprocess.Popen(
            [DOCAI, "--embed-model", MODEL, "--docs", str(docs), "ask", QUESTION],
            env=docai_env(tmp_path, slow.url), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        deadline = time.monotonic() + 60
        while not slow.bodies("/api/embed"):  # the question's embedding has started
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)  # far less than the server's minute
    assert process.returncode == 130, err
    assert "inesperado" not in err
