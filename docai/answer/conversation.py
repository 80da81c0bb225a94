"""The conversation of one REPL session: its turns, and the exchanges the model is sent.

A question is read in its conversation twice (`Answerer.answer`):

- retrieval reads the earlier *questions*, as `reading.reading_for` decides (which of them,
  if any, and what a refused one means for the questions after it);
- the model gets the earlier *exchanges* (`history_for`), question and answer as real chat
  turns, so it can tell what "ele" or "the other one" stands for. Never their sources: the
  current question's sources are the only ones in the prompt, and the budget drops the
  oldest exchanges first (`prompt.py`).

A question asked again is asked afresh: earlier turns with the same question are left out
of both. Sending the model its earlier answer to the very question would have it repeat
itself, and a user who asks again (after `/reindexar`, or to check) wants the answer the
docs give now; the request is then the one the first asking made, so the answer cache can
replay it. `/denovo` is how to ask for a new answer to the same question.

Frozen: a session replaces its `Conversation` with `add`/`without_last`, so a turn that
was interrupted half-way can never leave half a turn behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from docai.records import Hit


@dataclass(frozen=True, slots=True)
class Turn:
    """One question and what came of it. `answer` is "" when the model gave none (refused,
    failed, interrupted): the model is then not sent a reply. An `interrupted` one (Ctrl-C)
    still gives the model its question: the user stopped the answer, not the subject, and
    "e para HTML?" next means nothing without it. A `refused` one (the docs did not cover
    it) is read by retrieval as `reading.py` says: a refused follow-up is left out of the
    thread, a refused question that stood alone stays its subject."""

    question: str
    answer: str = ""
    sources: tuple[Hit, ...] = ()
    interrupted: bool = False
    refused: bool = False


@dataclass(frozen=True, slots=True)
class Exchange:
    """A past question and its answer, as the prompt sends them (user, then assistant);
    `answer` is "" for an answer the user interrupted (the prompt says so in its place)."""

    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class Conversation:
    """The turns so far, oldest first."""

    turns: tuple[Turn, ...] = ()

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def add(self, turn: Turn) -> Conversation:
        return Conversation((*self.turns, turn))

    def without_last(self) -> Conversation:
        return Conversation(self.turns[:-1])

    def history_for(self, question: str) -> tuple[Exchange, ...]:
        """The earlier answered or interrupted exchanges, oldest first (the prompt keeps
        what fits)."""
        return tuple(
            Exchange(turn.question, turn.answer)
            for turn in self._others(question)
            if turn.answer.strip() or turn.interrupted
        )

    def _others(self, question: str) -> list[Turn]:
        asked = same_question(question)
        return [turn for turn in self.turns if same_question(turn.question) != asked]


def same_question(question: str) -> str:
    """The identity of a question: case and spacing do not change what is asked."""
    return " ".join(question.casefold().split())
