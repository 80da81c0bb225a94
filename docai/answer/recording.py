"""A finished turn, read from the events of its answer: what the conversation keeps.

The REPL passes each event of `Answerer.answer` through a `TurnRecorder` as it renders it,
and adds `recorder.turn()` to its `Conversation` once the answer ends. Only a whole answer
is kept as the model's reply: one cut short (Ctrl-C, a failure mid-stream) would put half a
sentence in the model's mouth at the next question, so its turn keeps the question alone
(marked `interrupted` after Ctrl-C, so the model still hears what was asked).
"""

from __future__ import annotations

from docai.answer.answerer import AnswerEvent, ModelFailed, Retrieved
from docai.answer.conversation import Turn
from docai.llm.events import Done, TextDelta
from docai.records import Hit
from docai.retrieval.verdict import NotCovered


class TurnRecorder:
    """Collects one answer's text and sources from its events."""

    def __init__(self, question: str) -> None:
        self._question = question
        self._text: list[str] = []
        self._sources: tuple[Hit, ...] = ()
        self._complete = False
        self._interrupted = False
        self._refused = False

    def interrupted(self) -> None:
        """The user stopped the answer (Ctrl-C)."""
        self._interrupted = True

    def see(self, event: AnswerEvent) -> None:
        if isinstance(event, Retrieved):
            self._sources = event.hits
        elif isinstance(event, TextDelta):
            self._text.append(event.text)
        elif isinstance(event, Done):
            self._complete = True
        elif isinstance(event, ModelFailed):
            self._complete = False
        elif isinstance(event, NotCovered):
            self._refused = True

    @property
    def shown(self) -> str:
        """The answer's text so far, finished or not (what the user saw: the log keeps it)."""
        return "".join(self._text)

    def turn(self) -> Turn:
        """The turn as it stands: with the answer only if the model finished it."""
        if self._interrupted:
            return Turn(self._question, "", self._sources, interrupted=True)
        answer = "".join(self._text).strip() if self._complete else ""
        return Turn(self._question, answer, self._sources, refused=self._refused)
