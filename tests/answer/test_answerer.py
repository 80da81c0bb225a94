"""Answerer against a real index and a real HTTP fake Ollama: what a user would see happen."""

from __future__ import annotations

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
    normalise_question,
)
from docai.llm.errors import EmptyAnswer, ServerUnreachable
from docai.llm.events import Done, TextDelta
from docai.llm.ollama import OllamaClient
from docai.retrieval.search_index import open_index
from docai.retrieval.verdict import Fallback
from docai.settings import Settings
from tests.support.fake_ollama import FakeOllama, echo_last_user_message
from tests.support.network import closed_port_url
from tests.support.sample_docs import QUESTION, REPLY, write_docs


def make_answerer(docs: Path, url: str, **options: object) -> Answerer:
    settings = Settings(docs_dir=docs, cache_dir=docs.parent / "cache", **options)  # type: ignore[arg-type]
    index, _ = open_index(settings)
    backend = OllamaClient(url, settings.model, retries=0)
    return Answerer(index, backend, settings)


def answer_text(events: list[AnswerEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_answer_streams_from_the_retrieved_passages(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    answerer = make_answerer(sample_docs, fake_ollama.url)
    events = list(answerer.answer(QUESTION))
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    assert retrieved and retrieved[0].hits[0].chunk.heading == "Instalação > Com pip"
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1  # streamed piece by piece, not in one block
    assert answer_text(events) == REPLY
    assert isinstance(events[-1], Done)
    assert not [e for e in events if isinstance(e, AnswerWarning)]
    (request,) = fake_ollama.chat_requests
    system, user = request["messages"]
    assert "Answer only with information found in the sources" in system["content"]
    assert 'file="guide/install.md" section="Instalação &gt; Com pip"' in user["content"]
    assert "<question>\nComo instalo o docai com pip?\n</question>" in user["content"]
    assert request["options"]["num_ctx"] == 8192
    assert request["think"] is True


def test_no_passage_over_the_bar_answers_from_the_best_file(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    # no passage can clear this bar
    answerer = make_answerer(sample_docs, fake_ollama.url, min_coverage=1.01)
    events = list(answerer.answer("qual é o padrão da janela?"))
    assert Fallback("config.md") in events
    assert answer_text(events) == REPLY
    user = fake_ollama.chat_requests[0]["messages"][1]["content"]
    assert "No passage matched the question closely" in user
    # the whole file, every section, is in the prompt
    assert "O padrão é 8192 tokens." in user and "o padrão é deepseek-r1." in user


def test_nothing_matching_says_so_without_calling_the_model(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    answerer = make_answerer(sample_docs, fake_ollama.url)
    events = list(answerer.answer("xyzzy plugh quux"))
    assert events == [NotCovered()]
    assert fake_ollama.requests == []


def test_server_down_gives_the_best_passages_and_what_to_do(sample_docs: Path) -> None:
    answerer = make_answerer(sample_docs, closed_port_url())
    events = list(answerer.answer(QUESTION))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert isinstance(failed.error, ServerUnreachable)
    assert "ollama serve" in str(failed.error)
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"
    assert "pip install docai" in failed.passages[0].chunk.text


def test_repeated_question_replays_from_cache_without_a_request(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    answerer = make_answerer(sample_docs, fake_ollama.url)
    first = list(answerer.answer(QUESTION))
    again = list(answerer.answer("  Como instalo o docai com pip?\n"))
    assert CacheReplay() in again and CacheReplay() not in first
    assert answer_text(again) == answer_text(first) == REPLY
    assert len(fake_ollama.chat_requests) == 1


def test_a_changed_index_invalidates_both_caches(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    answerer = make_answerer(sample_docs, fake_ollama.url)
    list(answerer.answer(QUESTION))
    (sample_docs / "guide/install.md").write_text(
        "# Instalação\n\n## Com pip\n\nRode `pip install docai==2.0` (versão nova).\n",
        encoding="utf-8",
    )
    index, _ = open_index(answerer.settings)
    answerer.replace_index(index)
    events = list(answerer.answer(QUESTION))
    assert CacheReplay() not in events
    assert len(fake_ollama.chat_requests) == 2
    assert "docai==2.0" in fake_ollama.chat_requests[1]["messages"][1]["content"]


@pytest.mark.parametrize("show_thinking", [True, False])
def test_model_without_reasoning_is_retried_and_remembered(
    sample_docs: Path, fake_ollama: FakeOllama, show_thinking: bool
) -> None:
    answerer = make_answerer(
        sample_docs, fake_ollama.url, model="llama3.2", show_thinking=show_thinking
    )
    events = list(answerer.answer(QUESTION))
    warnings = [e.message for e in events if isinstance(e, AnswerWarning)]
    # Only a user who asked to see the reasoning hears that there is none.
    noted = any("llama3.2" in w and "raciocínio" in w for w in warnings)
    assert noted == show_thinking
    assert answer_text(events) == REPLY
    list(answerer.answer("Qual é o padrão de --num-ctx?"))
    thinks = [request.get("think") for request in fake_ollama.chat_requests]
    assert thinks == [True, None, None]


def test_error_midway_keeps_what_was_said_and_is_not_cached(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.think_shape = "none"
    fake_ollama.error_after = 2
    answerer = make_answerer(sample_docs, fake_ollama.url)
    events = list(answerer.answer(QUESTION))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert failed.passages == ()  # the partial answer stays; no extractive block after it
    assert answer_text(events) == "Rode pip "
    fake_ollama.error_after = None
    retry = list(answerer.answer(QUESTION))
    assert CacheReplay() not in retry and answer_text(retry) == REPLY


def test_prompt_read_only_in_part_by_the_server_warns(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    # The fake reports one prompt token per word; dotted names are one word but many tokens,
    # so here the server "reads" far fewer tokens than were sent, as after a silent cut.
    names = " ".join(f"a.b.c.h{n}" for n in range(150))
    docs = write_docs(tmp_path / "docs", {"api.md": f"# API\n\n## Nomes\n\nnomes: {names}\n"})
    answerer = make_answerer(docs, fake_ollama.url)
    events = list(answerer.answer("quais nomes existem na API?"))
    warnings = [e.message for e in events if isinstance(e, AnswerWarning)]
    assert any("--num-ctx" in w and "cortado" in w for w in warnings)


def test_the_model_sees_the_passages_it_is_asked_to_cite(sample_docs: Path) -> None:
    with FakeOllama(reply=echo_last_user_message) as echo:
        answerer = make_answerer(sample_docs, echo.url, top_k=2)
        events = list(answerer.answer("Como instalo o docai?"))
    (retrieved,) = [e for e in events if isinstance(e, Retrieved)]
    text = answer_text(events)
    for number, hit in enumerate(retrieved.hits, start=1):
        assert f'<source id="{number}" file="{hit.chunk.source}"' in text


def test_error_while_still_reasoning_falls_back_to_the_passages(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.error_after = 2  # two pieces of reasoning, then the server gives up
    answerer = make_answerer(sample_docs, fake_ollama.url)
    events = list(answerer.answer(QUESTION))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert answer_text(events) == ""
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"


def test_a_model_that_only_reasons_is_a_failure_with_the_passages(
    sample_docs: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.reply = ""  # the stream ends properly, but with reasoning and no answer
    answerer = make_answerer(sample_docs, fake_ollama.url)
    events = list(answerer.answer(QUESTION))
    (failed,) = [e for e in events if isinstance(e, ModelFailed)]
    assert isinstance(failed.error, EmptyAnswer) and "--no-think" in str(failed.error)
    assert failed.passages[0].chunk.heading == "Instalação > Com pip"
    fake_ollama.reply = REPLY
    retry = list(answerer.answer(QUESTION))
    assert CacheReplay() not in retry and answer_text(retry) == REPLY


def test_the_retrieval_cache_tells_case_apart_but_not_spacing() -> None:
    # "VS Code" is a name the docs must mention; "vs code" is two everyday words: they may
    # retrieve differently, so one must never replay the other's verdict.
    assert normalise_question("Como uso o VS Code?") != normalise_question("como uso o vs code?")
    spaced = "  Como uso o VS Code?\n"
    assert normalise_question(spaced) == normalise_question("Como uso o VS Code?")
