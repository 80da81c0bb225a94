"""A question read in its conversation and retrieved once, and answered with it: a real
index over real files, a real HTTP fake Ollama."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docai.answer.answerer import Answerer, CacheReplay, Retrieved
from docai.answer.conversation import Conversation, Turn
from docai.answer.reading import Reading, reading_for, settle
from docai.llm.ollama import OllamaClient
from docai.retrieval.search_index import SearchIndex, open_index
from docai.retrieval.verdict import NotCovered, Passages, retrieve
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


def after(*questions: str) -> Conversation:
    """A conversation of answered questions."""
    return Conversation(tuple(Turn(question, "Resposta.") for question in questions))


def asked_in_turn(index: SearchIndex, *questions: str) -> Conversation:
    """The questions asked one after the other, as the REPL asks them: each read in the
    conversation so far, its turn marked refused when the docs did not cover it."""
    conversation = Conversation()
    for question in questions:
        verdict = settle(index, reading_for(question, conversation), 1).verdict
        conversation = conversation.add(Turn(question, refused=isinstance(verdict, NotCovered)))
    return conversation


class CountingIndex(SearchIndex):
    """The real index over the same chunks, counting its ranking passes."""

    def __init__(self, index: SearchIndex) -> None:
        super().__init__(index.chunks, index.matrix, index.method)
        self.rankings = 0

    def rank(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        self.rankings += 1
        return super().rank(question, k)


def test_a_follow_up_finds_what_it_means_not_what_its_words_say(index: SearchIndex) -> None:
    assert sections(retrieve(index, FOLLOWUP, 1)) == [BARE_SECTION]
    reading = reading_for(FOLLOWUP, after(FIRST))
    assert reading.context == (FIRST,)
    assert sections(settle(index, reading, 1).verdict) == [FOLLOWUP_SECTION]


def test_a_new_subject_keeps_its_own_passage(index: SearchIndex) -> None:
    reading = reading_for(SWITCH, after(FIRST, FOLLOWUP))
    assert reading == Reading(SWITCH)  # it stands alone: read as in a fresh session
    assert sections(settle(index, reading, 1).verdict) == [SWITCH_SECTION]


def test_without_a_conversation_it_is_the_one_shot_retrieval(index: SearchIndex) -> None:
    for question in (FIRST, FOLLOWUP, SWITCH, "xyzzy plugh"):
        for conversation in (None, Conversation()):
            reading = reading_for(question, conversation)
            assert reading == Reading(question)
            assert settle(index, reading, 3).verdict == retrieve(index, question, 3)


def test_a_question_the_joining_refuses_is_answered_on_its_own_words_from_one_ranking(
    index: SearchIndex,
) -> None:
    context = "Como apagar o histórico de perguntas?"  # answered by historico.md
    question = "e qual é o padrão de --num-ctx dele?"  # "dele": taken for a follow-up
    reading = reading_for(question, after(context))
    assert isinstance(retrieve(index, reading.query, 1), NotCovered)  # the joined text
    counting = CountingIndex(index)
    settled = settle(counting, reading, 1)
    assert sections(settled.verdict) == [SWITCH_SECTION]
    assert settled.judged == question
    assert counting.rankings == 1  # judged twice, ranked once


def test_a_follow_up_about_a_subject_the_docs_never_mention_is_refused(
    index: SearchIndex,
) -> None:
    """Its everyday words alone would find the --num-ctx passage: they are not its subject."""
    for question in ("e qual é o padrão de --num-ctx dele?", "e quanto custa?"):
        conversation = asked_in_turn(index, "Como eu configuro o zorblax no quuxinator?",
                                     question)
        assert [turn.refused for turn in conversation.turns] == [True, True]


def test_a_refused_follow_up_does_not_steer_the_next_one(index: SearchIndex) -> None:
    refused = "e depois, como eu restauro o zorblax dele?"
    conversation = asked_in_turn(index, FIRST, refused)
    assert [turn.refused for turn in conversation.turns] == [False, True]
    reading = reading_for(FOLLOWUP, conversation)
    assert reading == reading_for(FOLLOWUP, after(FIRST))
    assert sections(settle(index, reading, 1).verdict) == [FOLLOWUP_SECTION]


def test_a_follow_up_is_read_with_the_two_questions_before_it_oldest_first() -> None:
    conversation = after("Como instalo?", "e no Mac?", "e no Windows?")
    assert reading_for("e no Linux?", conversation).context == ("e no Mac?", "e no Windows?")


def test_a_question_that_stands_alone_is_read_without_the_conversation() -> None:
    assert reading_for("Onde o docai guarda o cache?", after("Como instalo?", "e no Mac?")) \
        == Reading("Onde o docai guarda o cache?")


def test_a_follow_up_never_reaches_past_the_last_question_that_stood_alone() -> None:
    conversation = after("Como instalo?", "Onde fica o cache?")
    assert reading_for("e no Mac?", conversation).context == ("Onde fica o cache?",)
    longer = conversation.add(Turn("e no Mac?", "3"))
    assert reading_for("e no Windows?", longer).context == ("Onde fica o cache?", "e no Mac?")


def test_a_question_asked_twice_counts_once_in_the_thread() -> None:
    conversation = after("Onde fica o cache?", "e no Mac?", "E no Mac? ")
    assert reading_for("e no Windows?", conversation).context == ("Onde fica o cache?",
                                                                  "E no Mac? ")
    asked_again = after("Como instalo?", "e no Mac?")
    assert reading_for("E no MAC?", asked_again).context == ("Como instalo?",)


def test_what_a_refused_turn_means_for_the_thread() -> None:
    # a turn the model failed to answer still tells retrieval what the user talks about
    failed = Conversation((Turn("Como instalo?", "1"), Turn("e no Mac?")))
    assert reading_for("e no Windows?", failed) == Reading(
        "e no Windows?", ("Como instalo?", "e no Mac?"), own_words_may_answer=True)
    # a refused follow-up added a facet the docs lack, not a subject: it is left out
    refused_followup = Conversation((Turn("Como instalo?", "1"), Turn("e no Mac?", refused=True)))
    assert reading_for("e no Windows?", refused_followup) == Reading(
        "e no Windows?", ("Como instalo?",), own_words_may_answer=True)
    # a refused question that stood alone is the subject: kept, and its follow-ups may not
    # be answered on their everyday words alone
    refused_subject = Conversation((Turn("Como instalo o zorblax?", refused=True),))
    assert reading_for("e no Windows?", refused_subject) == Reading(
        "e no Windows?", ("Como instalo o zorblax?",), own_words_may_answer=False)


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
