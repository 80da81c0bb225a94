"""The one interface the answering layer needs from a model server (`ChatBackend`), and
the context-manager half every backend inherits."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Protocol, Self

from docai.llm.events import Event, Message


class ChatBackend(Protocol):
    """A streaming chat model.

    `stream_chat` yields ThinkingDelta/TextDelta events and ends with one Done; it raises
    `docai.llm.errors.LLMError` subclasses while iterating. `think=None` lets the server
    decide whether the model reasons. `name` says which kind of server it talks to (each
    client class has its own) and `model` which model; both are only read.
    """

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        think: bool | None,
        num_ctx: int,
        temperature: float,
        max_tokens: int | None = None,
    ) -> Iterator[Event]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class ClosedOnExit:
    """The context-manager half of `ChatBackend`, for backends to inherit: `with backend:`
    calls its `close()`."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
