"""The one interface the answering layer needs from a model server, and how to pick one."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Protocol, Self

from docai import messages
from docai.errors import SettingsError
from docai.llm.events import Event, Message
from docai.settings import Settings


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


def make_backend(
    settings: Settings, environ: dict[str, str] | None = None, *, quick: bool = False
) -> ChatBackend:
    """The backend `settings.backend` names, pointed at its URL and `settings.model`.

    The OpenAI backend reads its optional API key from OPENAI_API_KEY in `environ`
    (default: the process environment). A `quick` backend makes one attempt with a short
    connect timeout: for a server believed down, where retries would only make the user wait.
    """
    from docai.llm.http import CONNECT_TIMEOUT, DEFAULT_RETRY, QUICK_CONNECT_TIMEOUT

    retries = 0 if quick else DEFAULT_RETRY.retries
    connect_timeout = QUICK_CONNECT_TIMEOUT if quick else CONNECT_TIMEOUT
    if settings.backend == "openai":
        from docai.llm.openai import OpenAIClient

        if not settings.base_url:
            raise SettingsError(messages.LLM_OPENAI_NEEDS_BASE_URL)
        env = os.environ if environ is None else environ
        return OpenAIClient(
            settings.base_url,
            settings.model,
            api_key=env.get("OPENAI_API_KEY"),
            connect_timeout=connect_timeout,
            read_timeout=settings.read_timeout,
            retries=retries,
        )
    from docai.llm.ollama import OllamaClient

    return OllamaClient(
        settings.ollama_url, settings.model, connect_timeout=connect_timeout,
        read_timeout=settings.read_timeout, retries=retries,
    )
