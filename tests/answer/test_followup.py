"""A follow-up retrieved in its conversation, and answered with it: a real index over real
files, a real HTTP fake Ollama."""

from __future__ import annotations

from pathlib import Path

import pytest

from docai.answer.answerer import Answerer, CacheReplay, Retrieved
from docai.answer.conversation import Conversation, Turn
from docai.answer.followup import query_in_context, settle_in_context
from docai.llm.ollama import OllamaClient
from docai.retrieval.search_index import SearchIndex, open_index
from docai.retrieval.verdict import NotCovered, Passages, Query, retrieve
from docai.settings import Settings
from tests.answer.conversation_docs import (
    BARE_SECTION,
    DOCS,
    FIRST,
    FOLLOWUP,
    FOLLOWUP_SECTION,
    SWITCH,
    SWITCH_SECTION,
)
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import write_docs


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(docs_dir=write_docs(tmp_path / "docs", DOCS), cache_dir=tmp_path / "cache",
                    top_k=1)


@pytest.fixture
def index(settings: Settings) -> SearchIndex:
    return open_index(settings)[0]


def sections(verdict: object) -> list[str]:
    assert isinstance(verdict, Passages)
    return [hit.chunk.heading for hit in verdict.hits]


def test_a_follow_up_finds_what_it_means_not_what_its_words_say(index: SearchIndex) -> None:
    assert sections(retrieve(index, FOLLOWUP, 1)) == [BARE_SECTION]
    assert sections(settle_in_context(index, FOLLOWUP, (FIRST,), 1).verdict) == [FOLLOWUP_SECTION]


def test_a_new_subject_keeps_its_own_passage(index: SearchIndex) -> None:
    verdict = settle_in_context(index, SWITCH, (FIRST, FOLLOWUP), 1).verdict
    assert sections(verdict) == [SWITCH_SECTION]


def test_without_context_it_is_the_one_shot_retrieval(index: SearchIndex) -> None:
    for question in (FIRST, FOLLOWUP, SWITCH, "xyzzy plugh"):
        assert settle_in_context(index, question, (), 3).verdict == retrieve(index, question, 3)


def test_a_question_the_joining_refuses_is_answered_as_if_asked_alone(
    index: SearchIndex,
) -> None:
    context = ("Como apagar o histórico de perguntas?",)  # answered by historico.md
    question = "e qual é o padrão de --num-ctx dele?"  # "dele": taken for a follow-up
    assert isinstance(retrieve(index, query_in_context(question, context), 1), NotCovered)
    settled = settle_in_context(index, question, context, 1)
    assert settled.query == Query.of(question)
    assert sections(settled.verdict) == [SWITCH_SECTION]


def test_a_follow_up_about_a_subject_the_docs_never_mention_is_refused(
    index: SearchIndex,
) -> None:
    """Its everyday words alone would find the --num-ctx passage: they are not its subject."""
    context = ("Como eu configuro o zorblax no quuxinator?",)
    question = "e qual é o padrão de --num-ctx dele?"
    assert isinstance(settle_in_context(index, question, context, 1).verdict, NotCovered)
    assert isinstance(settle_in_context(index, "e quanto custa?", context, 1).verdict, NotCovered)


def answer(answerer: Answerer, question: str, conversation: Conversation | None = None,
           **options: bool) -> list[object]:
    return list(answerer.answer(question, conversation, **options))


def test_the_follow_up_request_carries_the_first_turn_and_its_own_passages(
    settings: Settings, numbered_ollama: FakeOllama
) -> None:
    answerer = Answerer(open_index(settings)[0], OllamaClient(numbered_ollama.url, settings.model),
                        settings)
    first = answer(answerer, FIRST)
    conversation = Conversation((Turn(FIRST, "Resposta 1.", first[0].hits),))  # type: ignore[attr-defined]
    events = answer(answerer, FOLLOWUP, conversation)
    (retrieved,) = [e for e in events if isinstance(e, Retrieved)]
    assert [hit.chunk.heading for hit in retrieved.hits] == [FOLLOWUP_SECTION]
    messages = numbered_ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert [messages[1]["content"], messages[2]["content"]] == [FIRST, "Resposta 1."]
    assert 'section="Índice &gt; Limpeza"' in messages[3]["content"]
    assert "<sources>" not in messages[1]["content"] + messages[2]["content"]


def test_a_follow_up_never_replays_an_answer_given_in_another_conversation(
    settings: Settings, numbered_ollama: FakeOllama
) -> None:
    answerer = Answerer(open_index(settings)[0], OllamaClient(numbered_ollama.url, settings.model),
                        settings)
    about_index = Conversation((Turn(FIRST, "Resposta 0."),))
    about_history = Conversation((Turn("Onde fica o histórico de perguntas?", "Resposta 0."),))
    one = answer(answerer, FOLLOWUP, about_index)
    other = answer(answerer, FOLLOWUP, about_history)
    assert not any(isinstance(e, CacheReplay) for e in other)
    assert one[0] != other[0]  # other passages: the retrieval cache keyed on the context
    again = answer(answerer, FOLLOWUP, about_index)
    assert any(isinstance(e, CacheReplay) for e in again)  # same conversation: same answer
    assert len(numbered_ollama.chat_requests) == 2


def test_fresh_generates_again_with_the_same_retrieval(
    settings: Settings, numbered_ollama: FakeOllama
) -> None:
    answerer = Answerer(open_index(settings)[0], OllamaClient(numbered_ollama.url, settings.model),
                        settings)
    first = answer(answerer, FIRST)
    fresh = answer(answerer, FIRST, fresh=True)
    assert not any(isinstance(e, CacheReplay) for e in fresh)
    assert first[0] == fresh[0]
    requests = numbered_ollama.chat_requests
    assert len(requests) == 2 and requests[0]["messages"] == requests[1]["messages"]
    assert any(isinstance(e, CacheReplay) for e in answer(answerer, FIRST))
