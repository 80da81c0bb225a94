"""`docai ask --json`: one answer as one JSON object, for scripts (as `llm` and aichat do).

The answer's events are collected instead of streamed: the text as the model wrote it, the
sources it was given (numbered as it cites them, in the shape of `docai search --json`),
what decided the answer (passages, a whole file, not covered, the model failing), the model,
warnings and timings. Everything docai says besides goes to stderr, as for `search --json`.
"""

from __future__ import annotations

import time
from typing import Any

from docai.answer.answerer import AnswerEvent, AnswerWarning, ModelFailed, Retrieved
from docai.cli.output.passages import coverage_json, location_json
from docai.llm.events import Done, TextDelta, ThinkingDelta
from docai.records import Hit
from docai.retrieval.verdict import Fallback, NotCovered
from docai.settings import Settings


class JsonAnswer:
    """Collects one answer's events; `.as_json()` once they are all seen. `failed` and
    `fallback_source` are what the log needs, as from the terminal's printer."""

    def __init__(self, question: str, settings: Settings) -> None:
        self._question = question
        self._settings = settings
        self._started = time.monotonic()
        self._first_token: float | None = None
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._hits: tuple[Hit, ...] = ()
        self._warnings: list[str] = []
        self._done: Done | None = None
        self._error: str | None = None
        self._status = "answered"
        self.failed = False
        self.fallback_source: str | None = None

    def show(self, event: AnswerEvent) -> None:
        if isinstance(event, Retrieved):
            self._hits = event.hits
        elif isinstance(event, Fallback):
            self.fallback_source = event.source
            self._status = "fallback"
        elif isinstance(event, NotCovered):
            self._status = "not_covered"
        elif isinstance(event, AnswerWarning):
            self._warnings.append(event.message)
        elif isinstance(event, ThinkingDelta | TextDelta):
            if self._first_token is None:
                self._first_token = time.monotonic()
            (self._text if isinstance(event, TextDelta) else self._thinking).append(event.text)
        elif isinstance(event, Done):
            self._done = event
        elif isinstance(event, ModelFailed):
            self.failed = True
            self._status = "failed"
            self._error = str(event.error)
            self._hits = self._hits or event.passages

    def as_json(self) -> dict[str, Any]:
        done = self._done or Done()
        now = time.monotonic()
        return {
            "question": self._question,
            "answer": "".join(self._text),
            "status": self._status,
            "sources": [_source(number, hit) for number, hit in enumerate(self._hits, start=1)],
            "fallback_source": self.fallback_source,
            "model": self._settings.model,
            "backend": self._settings.backend,
            "warnings": self._warnings,
            "error": self._error,
            "cut": done.done_reason == "length",
            "timings": {
                "total_s": round(now - self._started, 3),
                "first_token_s": None if self._first_token is None
                else round(self._first_token - self._started, 3),
                "prompt_tokens": done.prompt_eval_count,
                "answer_tokens": done.eval_count,
            },
        }


def _source(number: int, hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {"number": number, "source": chunk.source, "heading": chunk.heading,
            "chunk": chunk.ordinal, "location": location_json(chunk), "score": float(hit.score),
            "coverage": coverage_json(hit), "text": chunk.text}
