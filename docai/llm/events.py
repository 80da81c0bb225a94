"""What a chat backend streams back, independent of the server's wire format."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One chat turn sent to the model (`role` is "system", "user" or "assistant")."""

    role: str
    content: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of the model's reasoning; the UI may show it dimmed or hide it."""

    text: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the answer itself."""

    text: str


@dataclass(frozen=True, slots=True)
class Done:
    """The end of one answer. Servers may omit any metric, so every field is optional."""

    done_reason: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    eval_duration_ns: int | None = None
    total_duration_ns: int | None = None


Event = ThinkingDelta | TextDelta | Done

# `Done.done_reason` of a reply cut at its token limit (Ollama's and OpenAI's word alike).
LENGTH = "length"
