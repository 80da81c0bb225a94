"""Answerer against a real index and a real HTTP fake Ollama: what a user would see happen."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from docai.answer.answerer import (
    Answerer,
    AnswerEvent,
    AnswerWarning,
    CacheReplay,
    ModelFailed,
    NotCovered,
    Retrieved,
)
from docai.index.build import open_index
from docai.llm.errors import EmptyAnswer, ServerUnreachable
from docai.llm.events import Done, TextDelta
from docai.llm.ollama import OllamaClient
from docai.retrieval.verdict import Fallback
from docai.settings import Settings
from tests.support.fake_ollama import FakeOllama, echo_last_user_message

DOCS = {
    "guide/install.md": (
        "# Instalação\n\n## Com pip\n\nPara instalar o docai, rode `pip install docai` num "
        "ambiente virtual com Python 3.11.\n\n## Com pipx\n\nUse `pipx install docai` para ter "
        "o comando isolado do resto do sistema.\n"
    ),
    "config.md": (
        "# Configuração\n\n## Janela de contexto\n\nA opção --num-ctx define a janela de "
        "contexto pedida ao Ollama. O padrão é 8192 tokens.\n\n## Modelo\n\nA opção --model "
        "escolhe o modelo; o padrão é deepseek-r1.\n"
    ),
}
REPLY = "Rode pip install docai num ambiente virtual [1]."


def write_docs(root: Path, docs: dict[str, str] = DOCS) -> Path:
    for name, text in docs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "docs")


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY) as server:
        yield server


def make_answerer(docs: Path, url: str, **options: object) -> Answerer:
    settings = Settings(docs_dir=docs, cache_dir=docs.parent / "cache", **options)  # type: ignore[arg-type]
    index, _ = open_index(settings)
    backend = OllamaClient(url, settings.model, retries=0)
    return Answerer(index, backend, settings)


def answer_text(events: list[AnswerEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def free_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_answer_streams_from_the_retrieved_passages(docs: Path, fake: FakeOllama) -> None:
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("Como instalo o docai com pip?"))
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    assert retrieved and retrieved[0].hits[0].chunk.heading == "Instalação > Com pip"
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1  # streamed piece by piece, not in one block
    assert answer_text(events) == REPLY
    assert isinstance(events[-1], Done)
    assert not [e for e in events if isinstance(e, AnswerWarning)]
    (request,) = fake.chat_requests
    system, user = request["messages"]
    assert "Answer only with information found in the sources" in system["content"]
    assert 'file="guide/install.md" section="Instalação &gt; Com pip"' in user["content"]
    assert "<question>\nComo instalo o docai com pip?\n</question>" in user["content"]
    assert request["options"]["num_ctx"] == 8192
    assert request["think"] is True


def test_no_passage_over_the_bar_answers_from_the_best_file(docs: Path, fake: FakeOllama) -> None:
    answerer = make_answerer(docs, fake.url, min_score=1.01)  # no passage can clear it
    events = list(answerer.answer("qual é o padrão da janela?"))
    assert Fallback("config.md") in events
    assert answer_text(events) == REPLY
    user = fake.chat_requests[0]["messages"][1]["content"]
    assert "No passage matched the question closely" in user
    # the whole file, every section, is in the prompt
    assert "O padrão é 8192 tokens." in user and "o padrão é deepseek-r1." in user


def test_nothing_matching_says_so_without_calling_the_model(docs: Path, fake: FakeOllama) -> None:
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("xyzzy plugh quux"))
    assert events == [NotCovered()]
    assert fake.requests == []


def test_server_down_gives_the_best_passages_and_what_to_do(docs: Path) -> None:
    answerer = make_answerer(docs, free_port_url())
    events = list(answerer.answer("Como instalo o docai com pip?"))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert isinstance(failed.error, ServerUnreachable)
    assert "ollama serve" in str(failed.error)
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"
    assert "pip install docai" in failed.passages[0].chunk.text


def test_repeated_question_replays_from_cache_without_a_request(
    docs: Path, fake: FakeOllama
) -> None:
    answerer = make_answerer(docs, fake.url)
    first = list(answerer.answer("Como instalo o docai com pip?"))
    again = list(answerer.answer("  Como instalo o docai com pip?\n"))
    assert CacheReplay() in again and CacheReplay() not in first
    assert answer_text(again) == answer_text(first) == REPLY
    assert len(fake.chat_requests) == 1


def test_a_changed_index_invalidates_both_caches(docs: Path, fake: FakeOllama) -> None:
    answerer = make_answerer(docs, fake.url)
    question = "Como instalo o docai com pip?"
    list(answerer.answer(question))
    (docs / "guide/install.md").write_text(
        "# Instalação\n\n## Com pip\n\nRode `pip install docai==2.0` (versão nova).\n",
        encoding="utf-8",
    )
    index, _ = open_index(answerer.settings)
    answerer.replace_index(index)
    events = list(answerer.answer(question))
    assert CacheReplay() not in events
    assert len(fake.chat_requests) == 2
    assert "docai==2.0" in fake.chat_requests[1]["messages"][1]["content"]


@pytest.mark.parametrize("show_thinking", [True, False])
def test_model_without_reasoning_is_retried_and_remembered(
    docs: Path, fake: FakeOllama, show_thinking: bool
) -> None:
    answerer = make_answerer(docs, fake.url, model="llama3.2", show_thinking=show_thinking)
    events = list(answerer.answer("Como instalo o docai com pip?"))
    warnings = [e.message for e in events if isinstance(e, AnswerWarning)]
    # Only a user who asked to see the reasoning hears that there is none.
    noted = any("llama3.2" in w and "raciocínio" in w for w in warnings)
    assert noted == show_thinking
    assert answer_text(events) == REPLY
    list(answerer.answer("Qual é o padrão de --num-ctx?"))
    thinks = [request.get("think") for request in fake.chat_requests]
    assert thinks == [True, None, None]


def test_error_midway_keeps_what_was_said_and_is_not_cached(docs: Path, fake: FakeOllama) -> None:
    fake.think_shape = "none"
    fake.error_after = 2
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("Como instalo o docai com pip?"))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert failed.passages == ()  # the partial answer stays; no extractive block after it
    assert answer_text(events) == "Rode pip "
    fake.error_after = None
    retry = list(answerer.answer("Como instalo o docai com pip?"))
    assert CacheReplay() not in retry and answer_text(retry) == REPLY


def test_prompt_read_only_in_part_by_the_server_warns(tmp_path: Path, fake: FakeOllama) -> None:
    # The fake reports one prompt token per word; dotted names are one word but many tokens,
    # so here the server "reads" far fewer tokens than were sent, as after a silent cut.
    names = " ".join(f"a.b.c.h{n}" for n in range(150))
    docs = write_docs(tmp_path / "docs", {"api.md": f"# API\n\n## Nomes\n\nnomes: {names}\n"})
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("quais nomes existem na API?"))
    warnings = [e.message for e in events if isinstance(e, AnswerWarning)]
    assert any("--num-ctx" in w and "cortado" in w for w in warnings)


def test_the_model_sees_the_passages_it_is_asked_to_cite(docs: Path) -> None:
    with FakeOllama(reply=echo_last_user_message) as echo:
        answerer = make_answerer(docs, echo.url, top_k=2)
        events = list(answerer.answer("Como instalo o docai?"))
    (retrieved,) = [e for e in events if isinstance(e, Retrieved)]
    text = answer_text(events)
    for number, hit in enumerate(retrieved.hits, start=1):
        assert f'<source id="{number}" file="{hit.chunk.source}"' in text


def test_error_while_still_reasoning_falls_back_to_the_passages(
    docs: Path, fake: FakeOllama
) -> None:
    fake.error_after = 2  # two pieces of reasoning, then the server gives up
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("Como instalo o docai com pip?"))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert answer_text(events) == ""
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"


def test_a_model_that_only_reasons_is_a_failure_with_the_passages(
    docs: Path, fake: FakeOllama
) -> None:
    fake.reply = ""  # the stream ends properly, but with reasoning and no answer
    answerer = make_answerer(docs, fake.url)
    events = list(answerer.answer("Como instalo o docai com pip?"))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert isinstance(failed.error, EmptyAnswer) and "--no-think" in str(failed.error)
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"
    fake.reply = REPLY
    retry = list(answerer.answer("Como instalo o docai com pip?"))
    assert CacheReplay() not in retry and answer_text(retry) == REPLY
