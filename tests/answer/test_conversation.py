"""The conversation: the exchanges the model is sent, and what a turn keeps."""

from __future__ import annotations

from docai.answer.answerer import ModelFailed, Retrieved
from docai.answer.conversation import Conversation, Exchange, Turn
from docai.answer.recording import TurnRecorder
from docai.llm.errors import ServerUnreachable
from docai.llm.events import Done, TextDelta
from docai.records import Chunk, Hit
from docai.retrieval.verdict import NotCovered


def hit(text: str) -> Hit:
    return Hit(Chunk("a.md", ("A",), 0, text, 3), 1.0)


def test_the_model_gets_only_answered_exchanges_oldest_first() -> None:
    conversation = Conversation((Turn("um?", "1"), Turn("recusada?"), Turn("dois?", "2")))
    assert conversation.history_for("três?") == (Exchange("um?", "1"), Exchange("dois?", "2"))


def test_a_question_asked_again_is_asked_afresh() -> None:
    conversation = Conversation((Turn("Como instalo?", "pip"), Turn("e no Mac?", "brew")))
    assert conversation.history_for("  como INSTALO? ") == (Exchange("e no Mac?", "brew"),)


def test_new_turns_replace_the_conversation_never_change_it() -> None:
    first = Conversation().add(Turn("um?", "1"))
    second = first.add(Turn("dois?", "2"))
    assert first.turns == (Turn("um?", "1"),)
    assert second.last == Turn("dois?", "2")
    assert second.without_last() == first
    assert Conversation().last is None


def test_a_finished_answer_is_recorded_with_its_sources() -> None:
    recorder = TurnRecorder("Como instalo?")
    sources = (hit("pip install docai"),)
    for event in (Retrieved(sources), TextDelta("Rode pip "), TextDelta("install [1]."),
                  Done("stop")):
        recorder.see(event)
    assert recorder.turn() == Turn("Como instalo?", "Rode pip install [1].", sources)


def test_a_refused_question_is_recorded_as_refused() -> None:
    recorder = TurnRecorder("Como configuro o zorblax?")
    recorder.see(NotCovered())
    assert recorder.turn() == Turn("Como configuro o zorblax?", refused=True)


def test_an_answer_cut_short_keeps_the_question_only() -> None:
    interrupted = TurnRecorder("Como instalo?")
    interrupted.see(Retrieved((hit("pip"),)))
    interrupted.see(TextDelta("Rode pi"))  # Ctrl-C: no Done
    assert interrupted.turn().answer == ""
    failed = TurnRecorder("Como instalo?")
    failed.see(TextDelta("Rode"))
    failed.see(ModelFailed(ServerUnreachable("fora do ar", url="http://127.0.0.1:9"), ()))
    assert failed.turn() == Turn("Como instalo?")
