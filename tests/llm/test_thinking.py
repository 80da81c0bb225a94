"""Inline <think> reasoning is told apart from the answer however the stream is chunked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docai.llm.events import Done, Event, TextDelta, ThinkingDelta
from docai.llm.thinking import split_inline_thinking


def run(*pieces: str, done: bool = True) -> list[Event]:
    events: list[Event] = [TextDelta(p) for p in pieces]
    return list(split_inline_thinking(events + ([Done("stop")] if done else [])))


def joined(events: list[Event]) -> tuple[str, str]:
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return thinking, text


def test_tag_split_across_chunks_is_recognised() -> None:
    events = run("<thi", "nk>\nA pergunta é", " sobre pip.</th", "ink>\n\nUse ", "pip.")
    assert joined(events) == ("A pergunta é sobre pip.", "Use pip.")
    assert events[-1] == Done("stop")


def test_reasoning_comes_before_the_answer_in_the_event_order() -> None:
    kinds = [type(e) for e in run("<think>hmm</think>", "Resposta")]
    assert kinds == [ThinkingDelta, TextDelta, Done]


def test_missing_closing_tag_keeps_everything_as_reasoning() -> None:
    assert joined(run("<think>\nainda pensando quando", " o limite acabou")) == (
        "ainda pensando quando o limite acabou",
        "",
    )


def test_text_before_the_opening_tag_is_answer_text() -> None:
    assert joined(run("Ok. <think>pensando</think> Resposta.")) == ("pensando", "Ok. Resposta.")


def test_blank_lines_after_closing_tag_are_dropped_even_in_their_own_chunk() -> None:
    events = run("<think>x</think>", "\n", "\n  ", "Resposta")
    assert joined(events) == ("x", "Resposta")


def test_plain_answer_without_tags_passes_through() -> None:
    assert joined(run("Sem ", "raciocínio, a < b e x <= y.")) == (
        "",
        "Sem raciocínio, a < b e x <= y.",
    )


def test_a_trailing_partial_tag_is_flushed_as_text_at_the_end() -> None:
    assert joined(run("compare a <", done=False)) == ("", "compare a <")


def test_literal_think_tag_inside_the_answer_stays_text() -> None:
    events = run("<think>r</think>Use a tag <think> no prompt.")
    assert joined(events) == ("r", "Use a tag <think> no prompt.")


def test_field_thinking_and_done_pass_through_untouched() -> None:
    events = list(split_inline_thinking([ThinkingDelta("campo"), TextDelta("ok"), Done("stop")]))
    assert events == [ThinkingDelta("campo"), TextDelta("ok"), Done("stop")]


STREAM = "<think>\nraciocínio: a < b </ok>\n</think>\n\nResposta <b>final</b>"


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_chunking_gives_the_same_split(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(STREAM)]
    pieces = [STREAM[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert joined(run(*pieces)) == ("raciocínio: a < b </ok>\n", "Resposta <b>final</b>")
