"""Errors raised by the chat backends.

Each type names one thing that went wrong, so callers can react (the answering layer retries
`ThinkingUnsupported` without `think`) and the CLI can print the message, which always says
what to do. The messages themselves live in `docai.messages`.
"""

from __future__ import annotations

from typing import ClassVar

from docai.errors import DocaiError


class LLMError(DocaiError):
    """Base class. `transient` errors may be retried, but only before any output was shown."""

    transient: ClassVar[bool] = False


class ServerUnreachable(LLMError):
    """Nothing answered at the URL (connection refused, unknown host, connect timeout)."""

    transient = True

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class UnsupportedServer(LLMError):
    """The server lacks the endpoint: too old, or not the kind of server we expected."""


class ModelNotFound(LLMError):
    """The server does not have the model (Ollama: not pulled yet)."""

    def __init__(self, message: str, *, model: str) -> None:
        super().__init__(message)
        self.model = model


class ThinkingUnsupported(LLMError):
    """`think: true` was sent to a model that cannot reason; retry with `think=None`."""

    def __init__(self, message: str, *, model: str) -> None:
        super().__init__(message)
        self.model = model


class ChatUnsupported(LLMError):
    """The model cannot chat (e.g. an embedding-only model)."""


class AuthenticationFailed(LLMError):
    """The server refused the API key (HTTP 401/403)."""


class ServerBusy(LLMError):
    """HTTP 429 or 503 that outlasted every retry."""

    transient = True

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class ResponseTimeout(LLMError):
    """No byte arrived within the read timeout (often a cold model load)."""


class StreamInterrupted(LLMError):
    """The connection dropped. `partial` tells whether some of the answer was already shown."""

    transient = True

    def __init__(self, message: str, *, partial: bool) -> None:
        super().__init__(message)
        self.partial = partial


class ServerError(LLMError):
    """The server reported an error; `server_message` is its own text, verbatim."""

    def __init__(self, message: str, *, server_message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.server_message = server_message
        self.status = status


class StreamError(ServerError):
    """An `error` object arrived inside a stream that had started with HTTP 200."""


class EmptyAnswer(LLMError):
    """The stream ended properly but without a word of answer (e.g. it only reasoned)."""


class MalformedResponse(LLMError):
    """A line of the response was not the JSON the protocol promises."""


class ProtocolMismatch(MalformedResponse, StreamInterrupted):
    """The server at the URL answers, but not in the protocol docai speaks to it: no JSON,
    JSON of another shape, nothing a chat reply is made of. Some other kind of server is
    listening there, and asking again gets the same reply, so it is never retried. It is
    a StreamInterrupted too (the reply never reached the protocol's end), so code that
    handles a broken stream handles this one."""

    transient = False

    def __init__(self, message: str) -> None:
        super().__init__(message, partial=False)
