"""The conversation of one REPL session: the turns so far, and what a new question takes from them.

A question is read in its conversation twice (`Answerer.answer`):

- retrieval takes the earlier *questions* (`context_for`), and only for a question that
  depends on them (`dependence.py`): "e dentro do modo interativo?" names no subject of its
  own, the question before it does (`followup.py`); a question that stands alone is
  retrieved as in a fresh session. A dependent question follows its thread back to the
  last question that stood alone, never past it: a topic switched three questions ago
  cannot steer it;
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

from docai.answer.dependence import depends_on_conversation
from docai.records import Hit

# Earlier questions that retrieval reads a follow-up with: the one it follows and the one
# before (a chain of short follow-ups, "e no Mac?" then "e no Windows?", keeps its subject).
CONTEXT_QUESTIONS = 2


@dataclass(frozen=True, slots=True)
class Turn:
    """One question and what came of it. `answer` is "" when the model gave none (refused,
    failed, interrupted): such a turn still gives retrieval its words, not the model a reply.
    An `interrupted` one (Ctrl-C) still gives the model its question: the user stopped the
    answer, not the subject, and "e para HTML?" next means nothing without it."""

    question: str
    answer: str = ""
    sources: tuple[Hit, ...] = ()
    interrupted: bool = False
    # The docs did not cover it: its words found nothing, so they must not steer the
    # questions after it (a follow-up is read as if the refused question had not been asked).
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

    def context_for(self, question: str) -> tuple[str, ...]:
        """The earlier questions retrieval reads `question` with, oldest first: none when it
        stands alone; else its thread, back to the last question that stood alone (at most
        `CONTEXT_QUESTIONS`). A question asked more than once counts once (its words must
        not outweigh the new question's)."""
        if not depends_on_conversation(question):
            return ()
        newest_first: dict[str, str] = {}
        for turn in reversed(self._others(question)):
            if turn.refused:
                continue
            if len(newest_first) == CONTEXT_QUESTIONS:
                break
            if same_question(turn.question) in newest_first:
                continue
            newest_first[same_question(turn.question)] = turn.question
            if not depends_on_conversation(turn.question):
                break
        return tuple(reversed(list(newest_first.values())))

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
