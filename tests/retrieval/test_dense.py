"""Dense retrieval against FakeOllama over real HTTP, with the vector store in tmp_path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docai import messages
from docai.index import vector_store
from docai.index.chunk_table import ChunkTable
from docai.llm.errors import ModelNotFound, ServerError, ServerUnreachable
from docai.llm.ollama import OllamaClient
from docai.records import Chunk
from docai.retrieval.dense import (
    EMBED_BATCH_SIZE,
    DenseIndex,
    DenseRetriever,
    build_dense_index,
)
from tests.support.fake_ollama import EMBED_DIMENSIONS, FakeOllama, Responder
from tests.support.network import closed_port_url

MODEL = "all-minilm"  # a model without task prompts: the server sees the texts as they are
TEXTS = (
    "Instalação\nInstale o pacote com pip install docai no terminal.",
    "Configuração\nO arquivo de configuração fica na pasta do usuário.",
    "Desempenho\nO índice é salvo em disco e carregado rapidamente.",
)


class PickyOllama(FakeOllama):
    """FakeOllama plus two real-server behaviours the shared fake lacks.

    `/api/embed` on a model without the "embedding" capability answers like Ollama
    ("this model does not support embeddings"), and `embed_fail_after` makes every embed
    request after the first N fail, as a server that crashes mid-build.
    """

    def __init__(self, *, embed_fail_after: int | None = None, **knobs: Any) -> None:
        super().__init__(**knobs)
        self.embed_fail_after = embed_fail_after

    def handle(
        self, respond: Responder, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> None:
        if path == "/api/embed":
            model = self._find(str((body or {}).get("model", "")))
            if model is not None and "embedding" not in model.capabilities:
                respond.send_json(400, {"error": "this model does not support embeddings"})
                return
            done = len(self.bodies("/api/embed")) - 1
            if self.embed_fail_after is not None and done >= self.embed_fail_after:
                respond.send_json(500, {"error": "llama runner process has terminated"})
                return
        super().handle(respond, method, path, body, headers)


@pytest.fixture
def fake() -> Iterator[PickyOllama]:
    with PickyOllama() as server:
        yield server


def client_for(url: str) -> OllamaClient:
    return OllamaClient(url, "deepseek-r1", backoff=0.01, read_timeout=5.0, connect_timeout=2.0)


def chunks_of(*texts: str) -> list[Chunk]:
    return [
        Chunk(source=f"doc{i}.md", heading_path=(text.split("\n")[0],), ordinal=0, text=text,
              tokens=len(text.split()))
        for i, text in enumerate(texts)
    ]


def embedded_texts(fake: FakeOllama) -> list[str]:
    """Every text sent to /api/embed, in order."""
    return [text for body in fake.bodies("/api/embed") for text in body["input"]]


def build(fake: FakeOllama, store: Path, texts: tuple[str, ...] | list[str], **options: Any):
    with client_for(fake.url) as client:
        return build_dense_index(chunks_of(*texts), client, store, model=MODEL, **options)


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return vector_store.store_path(tmp_path / "cache", MODEL)


def test_only_new_or_changed_chunks_are_embedded_again(fake: PickyOllama, store: Path) -> None:
    index, report = build(fake, store, TEXTS)
    assert sorted(embedded_texts(fake)) == sorted(TEXTS)
    assert (len(index), index.dimension, report.embedded, report.reused) == (3, 64, 3, 0)
    assert report.notices == ()

    edited = (TEXTS[0], TEXTS[1] + " Edite com cuidado.", TEXTS[2])
    sent_before = len(embedded_texts(fake))
    _, report = build(fake, store, edited)
    assert embedded_texts(fake)[sent_before:] == [edited[1]]
    assert (report.embedded, report.reused) == (1, 2)

    requests_before = len(fake.bodies("/api/embed"))
    _, report = build(fake, store, edited)
    assert len(fake.bodies("/api/embed")) == requests_before
    assert (report.embedded, report.reused) == (0, 3)


def test_vectors_of_removed_chunks_are_dropped_from_the_store(
    fake: PickyOllama, store: Path
) -> None:
    build(fake, store, TEXTS)
    _, report = build(fake, store, TEXTS[:2])
    saved = vector_store.load(store, MODEL)
    assert saved is not None
    assert sorted(saved.keys.tolist()) == sorted(vector_store.checksum(t) for t in TEXTS[:2])
    assert report.dropped == 1


def test_temp_files_of_a_killed_store_write_are_swept_by_the_next_save(
    fake: PickyOllama, store: Path
) -> None:
    build(fake, store, TEXTS)
    leftover = store.parent / f".{store.name}.k1ll3d.tmp"
    leftover.write_bytes(b"half a file")
    build(fake, store, TEXTS[:2])
    assert not leftover.exists()
    assert vector_store.load(store, MODEL) is not None


def test_store_is_plain_arrays_named_after_the_model(fake: PickyOllama, store: Path) -> None:
    build(fake, store, TEXTS)
    assert store.name.startswith("embeddings-all-minilm-")
    with np.load(store, allow_pickle=False) as npz:
        keys, vectors = npz["keys"], npz["vectors"]
        assert str(npz["model"]) == MODEL and int(npz["dimension"]) == EMBED_DIMENSIONS
    assert keys.dtype.kind == "U" and vectors.dtype == np.float32
    assert vectors.shape == (3, EMBED_DIMENSIONS)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert not list(store.parent.glob("*.tmp"))  # no temp file left


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"not a zip at all" * 40, id="garbage"),
        pytest.param(lambda data: data[:900] + bytes([data[900] ^ 0xFF]) + data[901:],
                     id="bit-flip"),
        pytest.param(lambda data: npy_bytes(np.ones(3)), id="bare-npy"),
    ],
)
def test_a_damaged_store_is_reported_in_one_line_and_rebuilt(
    fake: PickyOllama, store: Path, damage: Any
) -> None:
    build(fake, store, TEXTS)
    store.write_bytes(damage(store.read_bytes()))
    sent_before = len(embedded_texts(fake))

    index, report = build(fake, store, TEXTS)

    assert report.notices == (
        messages.DENSE_STORE_REBUILT.format(
            model=MODEL, reason=messages.DENSE_STORE_CORRUPT.format(file=store.name)
        ),
    )
    assert "\n" not in report.notices[0]
    assert sorted(embedded_texts(fake)[sent_before:]) == sorted(TEXTS)
    assert len(index) == 3
    assert vector_store.load(store, MODEL) is not None  # healthy again


def test_a_store_with_inconsistent_dimension_is_rebuilt(fake: PickyOllama, store: Path) -> None:
    build(fake, store, TEXTS)
    with np.load(store, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    np.savez(store, **(arrays | {"dimension": np.asarray(32, dtype=np.int64)}))

    _, report = build(fake, store, TEXTS)

    assert report.notices == (
        messages.DENSE_STORE_REBUILT.format(
            model=MODEL, reason=messages.DENSE_STORE_CORRUPT.format(file=store.name)
        ),
    )
    assert report.embedded == 3


def test_a_model_whose_vectors_changed_size_is_embedded_again(
    fake: PickyOllama, store: Path
) -> None:
    old_keys = [vector_store.checksum(t) for t in TEXTS[:2]]
    vector_store.save(store, vector_store.StoredVectors(
        model=MODEL,
        keys=np.asarray(old_keys, dtype=vector_store.CHECKSUM_DTYPE),
        vectors=np.eye(2, 8, dtype=np.float32),
    ))

    index, report = build(fake, store, TEXTS)

    assert sorted(embedded_texts(fake)) == sorted(TEXTS)
    assert index.dimension == EMBED_DIMENSIONS and report.embedded == 3
    assert report.notices == (messages.DENSE_STORE_REBUILT.format(
        model=MODEL, reason=messages.DENSE_DIMENSION_CHANGED.format(new=64, old=8)),)


def test_question_ranks_the_chunk_sharing_its_words_first(fake: PickyOllama, store: Path) -> None:
    with client_for(fake.url) as client:
        index, _ = build_dense_index(chunks_of(*TEXTS), client, store, model=MODEL)
        retriever = DenseRetriever(index, client, MODEL)
        question = "como instale o pacote com pip install?"
        ranking = retriever.rank(question, 2)
        requests_before = len(fake.bodies("/api/embed"))
        assert retriever.rank(question, 2) == ranking

    assert [row for row, _ in ranking][0] == 0
    assert ranking[0][1] > ranking[1][1]
    assert len(fake.bodies("/api/embed")) == requests_before  # repeated question: cached
    assert fake.bodies("/api/embed")[-1]["input"] == [question]


def test_models_trained_with_task_prompts_get_them_on_passages_and_questions(
    fake: PickyOllama, tmp_path: Path
) -> None:
    model = "nomic-embed-text:latest"
    store = vector_store.store_path(tmp_path / "cache", model)
    with client_for(fake.url) as client:
        index, _ = build_dense_index(chunks_of(*TEXTS), client, store, model=model)
        DenseRetriever(index, client, model).rank("como instalo?", 1)
    sent = embedded_texts(fake)
    assert sorted(sent[:-1]) == sorted(f"search_document: {text}" for text in TEXTS)
    assert sent[-1] == "search_query: como instalo?"


def run_search(docs: Path, cache: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "docai", "search", "pip install docai", "--json",
               "--docs", str(docs), "--cache-dir", str(cache), "--ollama-url", url, *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])


def test_search_with_embed_model_fuses_dense_and_reuses_vectors(
    fake: PickyOllama, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, text in enumerate(TEXTS):
        (docs / f"{number}.md").write_text(text, encoding="utf-8")
    first = run_search(docs, tmp_path / "cache", fake.url, "--embed-model", MODEL)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["results"][0]["source"] == "0.md"
    embedded = [text for body in fake.bodies("/api/embed") for text in body["input"]]
    assert len(embedded) == len(TEXTS) + 1  # every chunk, then the question

    again = run_search(docs, tmp_path / "cache", fake.url, "--embed-model", MODEL)
    assert again.returncode == 0, again.stderr
    embedded_again = [text for body in fake.bodies("/api/embed") for text in body["input"]]
    assert embedded_again[len(embedded):] == ["pip install docai"]  # vectors reused


def test_search_without_an_embedding_server_warns_and_stays_lexical(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(TEXTS[0], encoding="utf-8")
    result = run_search(docs, tmp_path / "cache", closed_port_url(), "--embed-model", MODEL)
    assert result.returncode == 0, result.stderr
    assert "busca densa desativada" in result.stderr
    assert json.loads(result.stdout)["results"][0]["source"] == "a.md"


def test_equal_cosines_fall_back_to_source_order() -> None:
    chunks = [Chunk("b.md", (), 0, "x", 1), Chunk("a.md", (), 1, "x", 1),
              Chunk("a.md", (), 0, "x", 1)]
    vectors = np.ones((3, 2), dtype=np.float32) / np.sqrt(2)
    index = DenseIndex(vectors, ChunkTable.of(chunks).tiebreak())
    assert [row for row, _ in index.rank(np.array([1.0, 1.0]), 3)] == [2, 1, 0]


def test_missing_model_says_how_to_pull_it(fake: PickyOllama, store: Path) -> None:
    with client_for(fake.url) as client, pytest.raises(ModelNotFound) as raised:
        build_dense_index(chunks_of(*TEXTS), client, store, model="bge-m3")
    assert "ollama pull bge-m3" in str(raised.value) and "--embed-model" in str(raised.value)


def test_chat_model_used_for_embeddings_is_named_as_such(fake: PickyOllama, store: Path) -> None:
    with client_for(fake.url) as client, pytest.raises(ServerError) as raised:
        build_dense_index(chunks_of(*TEXTS), client, store, model="deepseek-r1")
    assert str(raised.value) == messages.DENSE_CANNOT_EMBED.format(
        model="deepseek-r1", detail="this model does not support embeddings")


def test_server_down_is_reported_as_unreachable(store: Path) -> None:
    client = OllamaClient(closed_port_url(), "deepseek-r1", backoff=0.01, retries=1)
    with client, pytest.raises(ServerUnreachable):
        build_dense_index(chunks_of(*TEXTS), client, store, model=MODEL)
    assert not store.exists()


def test_question_embed_errors_surface_to_the_caller(store: Path) -> None:
    with PickyOllama() as fake, client_for(fake.url) as client:
        index, _ = build_dense_index(chunks_of(*TEXTS), client, store, model=MODEL)
        fake.embed_fail_after = len(fake.bodies("/api/embed"))
        with pytest.raises(ServerError, match="llama runner"):
            DenseRetriever(index, client, MODEL).rank("pip install", 3)


def test_a_build_cut_short_keeps_the_vectors_it_got(store: Path) -> None:
    texts = [f"Seção {i}\nTexto número {i} sobre o assunto {i}." for i in range(40)]
    with PickyOllama(embed_fail_after=1) as fake:
        with pytest.raises(ServerError):
            build(fake, store, texts)
        fake.embed_fail_after = None
        _, report = build(fake, store, texts)
    assert (report.reused, report.embedded) == (EMBED_BATCH_SIZE, 40 - EMBED_BATCH_SIZE)


def test_unwritable_cache_folder_is_a_notice_not_a_crash(fake: PickyOllama, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    store = vector_store.store_path(blocker, MODEL)

    index, report = build(fake, store, TEXTS)

    assert len(index) == 3
    assert any(notice.startswith("não consegui salvar os vetores") for notice in report.notices)
