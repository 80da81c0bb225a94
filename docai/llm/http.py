"""HTTP plumbing shared by the backends: client set-up, error translation and retries.

Retries follow one rule: a transient failure (nothing listening yet, 429/503, a dropped
connection) is retried with exponential backoff only while nothing has been yielded to the
caller. Once part of an answer is on the user's screen, repeating the request would print a
second, different answer after the first, so the error is raised instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import httpx

from docai import messages
from docai.llm.errors import (
    LLMError,
    MalformedResponse,
    ResponseTimeout,
    ServerUnreachable,
    StreamInterrupted,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubles on each further one

    def delay(self, attempt: int) -> float:
        return self.backoff * (2**attempt)


def make_client(
    base_url: str,
    *,
    connect_timeout: float,
    read_timeout: float,
    transport: httpx.BaseTransport | None,
    headers: dict[str, str] | None = None,
) -> httpx.Client:
    """An httpx client with explicit timeouts.

    `trust_env=False`: the servers are local, and an HTTP(S)_PROXY meant for the internet
    would otherwise swallow requests to 127.0.0.1.
    """
    timeout = httpx.Timeout(
        connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
    )
    return httpx.Client(
        base_url=base_url, timeout=timeout, transport=transport, headers=headers, trust_env=False
    )


def retrying(attempt: Callable[[], Iterator[T]], policy: RetryPolicy) -> Iterator[T]:
    """Yield from `attempt()`, starting it again after a transient error that came before output."""
    for number in range(policy.retries):
        started = False
        try:
            for item in attempt():
                started = True
                yield item
            return
        except LLMError as error:
            if started or not error.transient:
                raise
        time.sleep(policy.delay(number))
    yield from attempt()


def call_with_retries(attempt: Callable[[], T], policy: RetryPolicy) -> T:
    """Return `attempt()`, calling it again after a transient error (for one-shot requests)."""
    for number in range(policy.retries):
        try:
            return attempt()
        except LLMError as error:
            if not error.transient:
                raise
        time.sleep(policy.delay(number))
    return attempt()


def transport_error(
    error: httpx.TransportError,
    *,
    url: str,
    unreachable_message: str,
    timeout_message: str,
    partial: bool,
) -> LLMError:
    """The docai error for a network-level failure (as opposed to an HTTP error status)."""
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol):
        return ServerUnreachable(unreachable_message, url=url)
    if isinstance(error, httpx.TimeoutException):
        return ResponseTimeout(timeout_message)
    reason = str(error) or type(error).__name__
    template = messages.LLM_INTERRUPTED if partial else messages.LLM_DROPPED
    return StreamInterrupted(template.format(url=url, reason=reason), partial=partial)


def error_detail(body: str) -> str | None:
    """The server's own error text from a JSON error body, or None if the body is not one.

    Ollama sends `{"error": "..."}`; OpenAI-compatible servers `{"error": {"message": ...}}`.
    """
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or "error" not in data:
        return None
    error = data["error"]
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def parse_json_object(line: str, *, url: str) -> dict[str, object]:
    """One protocol line as a JSON object; anything else means the server is not speaking it."""
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise MalformedResponse(messages.LLM_MALFORMED.format(url=url, line=line[:120]))
    return data
