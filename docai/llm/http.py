"""HTTP plumbing shared by the backends: client set-up, error translation and retries.

Retries follow one rule: a transient failure (nothing listening yet, 429/503, a dropped
connection) is retried with exponential backoff only while nothing has been yielded to the
caller. Once part of an answer is on the user's screen, repeating the request would print a
second, different answer after the first, so the error is raised instead. A reply in the
wrong protocol (JSON of another shape, or no JSON) is never retried: it would come back
the same.

Every message names the server by `shown_url`, the URL with any password replaced by
`***` (`docai.redaction.redact_url`); the request itself still carries it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import httpx

from docai import messages
from docai.byte_text import valid_values
from docai.errors import SettingsError
from docai.llm.base import ClosedOnExit
from docai.llm.bounded import (
    MAX_REPLY_BYTES,
    OversizedReply,
    body_start,
    bounded_answer,
    bounded_body,
    bounded_lines,
)
from docai.llm.errors import (
    LLMError,
    ModelNotFound,
    ProtocolMismatch,
    ResponseTimeout,
    ServerBusy,
    ServerError,
    ServerUnreachable,
    StreamError,
    StreamInterrupted,
    UnsupportedServer,
)
from docai.llm.events import Event, Message
from docai.llm.replies import drop_reason, error_detail, error_text, response_text
from docai.llm.thinking import split_inline_thinking
from docai.redaction import redact_url

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubles on each further one

    def delay(self, attempt: int) -> float:
        return self.backoff * (2**attempt)


DEFAULT_RETRY = RetryPolicy()
CONNECT_TIMEOUT = 5.0  # seconds: a server that is up accepts at once; longer means it is down
# A server already known to be down is asked again once, this briefly, before each question:
# the user learns at once that it is still down, and as soon as it is back it answers.
QUICK_CONNECT_TIMEOUT = 1.0


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
    would otherwise swallow requests to 127.0.0.1. A URL httpx cannot parse (a bad port or
    IP address, e.g. from OLLAMA_HOST) is a settings error, reported before any work.
    """
    timeout = httpx.Timeout(
        connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
    )
    try:
        return httpx.Client(
            base_url=base_url, timeout=timeout, transport=transport, headers=headers,
            trust_env=False,
        )
    except httpx.InvalidURL as error:
        message = messages.LLM_BAD_URL.format(url=redact_url(base_url), reason=error)
        raise SettingsError(message) from None


class HTTPBackend(ClosedOnExit):
    """What the chat clients share: the httpx client, the streamed request with retries,
    and error translation.

    Subclasses set `name`, `chat_path` and the message templates for their kind of server
    (how to start it, an unknown endpoint, a missing model), and implement `_chat_body`
    (the request), `_read_stream` (response lines -> events, ending with Done) and
    `_specific_error` (statuses only their kind of server uses); `protocol`, `server_kind`
    and `url_option` name, in messages, what they speak, what they expect at the URL and
    where the user sets it.
    `stream_chat` is lazy: the request is sent when iteration starts, and errors (all
    `LLMError` subclasses) are raised from the iteration.
    """

    name: ClassVar[str]
    chat_path: ClassVar[str]
    unreachable_template: ClassVar[str]  # fields: url
    no_endpoint_template: ClassVar[str]  # url, path
    model_not_found_template: ClassVar[str]  # url, model, detail
    protocol: ClassVar[str]
    server_kind: ClassVar[str]
    url_option: ClassVar[str]

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        connect_timeout: float,
        read_timeout: float,
        retries: int,
        backoff: float,
        transport: httpx.BaseTransport | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.base_url = base_url
        self.shown_url = redact_url(base_url)
        self.model = model
        self._read_timeout = read_timeout
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._client = make_client(
            base_url,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            transport=transport,
            headers=headers,
        )

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        think: bool | None,
        num_ctx: int,
        temperature: float,
        max_tokens: int | None = None,
    ) -> Iterator[Event]:
        """The reply's events; with `max_tokens`, the server is asked to stop there and the
        stream is cut soon after in any case (a server may ignore the request), ending with
        a `Done` whose `done_reason` is "length"."""
        body = self._chat_body(messages, think=think, num_ctx=num_ctx, temperature=temperature,
                               max_tokens=max_tokens)
        events = retrying(lambda: self._chat_attempt(body), self._retry)
        if max_tokens is not None:
            events = bounded_answer(events, max_tokens)
        return split_inline_thinking(events)

    def close(self) -> None:
        self._client.close()

    def _chat_body(
        self, messages: Sequence[Message], *, think: bool | None, num_ctx: int,
        temperature: float, max_tokens: int | None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _read_stream(self, lines: Iterator[str]) -> Iterator[Event]:
        raise NotImplementedError

    def _specific_error(
        self, status: int, detail: str | None, shown: str, model: str
    ) -> LLMError | None:
        """An error only this kind of server signals (`shown`: what to quote of its body)."""
        raise NotImplementedError

    def _status_error(self, response: httpx.Response, *, path: str, model: str) -> LLMError:
        """The docai error for an HTTP error status, from the most to the least specific.

        Only the start of the body is read: a server can send an error page of any size."""
        status = response.status_code
        body = body_start(response.iter_bytes())
        detail = error_detail(body)
        url = self.shown_url
        if status in (429, 503):
            attempts = self._retry.retries + 1
            return ServerBusy(
                messages.LLM_BUSY.format(url=url, status=status, attempts=attempts), status=status
            )
        if status in (404, 405, 501) and detail is None:
            # A router's plain-text 404, or a web server that takes no POST there (an HTML
            # page): the endpoint is unknown, not the model.
            return UnsupportedServer(self.no_endpoint_template.format(url=url, path=path))
        if status == 404:
            message = self.model_not_found_template.format(url=url, model=model, detail=detail)
            return ModelNotFound(message, model=model)
        text = response_text(body, response.reason_phrase, detail)
        if (specific := self._specific_error(status, detail, text, model)) is not None:
            return specific
        return ServerError(
            messages.LLM_SERVER_ERROR.format(url=url, status=status, detail=text),
            server_message=text,
            status=status,
        )

    def _chat_attempt(self, body: dict[str, Any]) -> Iterator[Event]:
        yielded = False
        try:
            with self._client.stream("POST", self.chat_path,
                                     json=valid_values(body)) as response:
                self._check_status(response, path=self.chat_path, model=self.model)
                for event in self._read_stream(bounded_lines(response.iter_bytes())):
                    yielded = True
                    yield event
        except httpx.RequestError as error:
            raise self._transport_error(error, partial=yielded) from error
        except OversizedReply as error:
            raise self._oversized(error.limit) from None

    def _request_json(
        self, method: str, path: str, *, model: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One request whose whole reply is a JSON object, read up to `MAX_REPLY_BYTES`;
        transient failures retried."""
        def attempt() -> dict[str, Any]:
            try:
                with self._client.stream(method, path, json=valid_values(body)) as response:
                    self._check_status(response, path=path, model=model)
                    text = bounded_body(response.iter_bytes(), MAX_REPLY_BYTES)
            except httpx.RequestError as error:
                raise self._transport_error(error, partial=False) from error
            except OversizedReply as error:
                raise self._oversized(error.limit) from None
            return self._json_object(text.decode("utf-8", errors="replace"))

        return call_with_retries(attempt, self._retry)

    def _check_status(self, response: httpx.Response, *, path: str, model: str) -> None:
        """Raise the docai error for a reply that is not a success: an error status, or a
        redirect (httpx follows none, and a redirect's empty body would otherwise read as
        a dropped connection)."""
        if response.is_redirect:
            location = response.headers.get("location", "")
            raise UnsupportedServer(messages.LLM_REDIRECTED.format(
                url=self.shown_url, status=response.status_code,
                location=redact_url(location)[:200] or "?", option=self.url_option,
            ))
        if response.is_error:
            raise self._status_error(response, path=path, model=model)

    def _oversized(self, limit: int) -> ProtocolMismatch:
        return ProtocolMismatch(messages.LLM_OVERSIZED.format(
            url=self.shown_url, size=max(limit // (1 << 20), 1), server=self.server_kind,
            option=self.url_option,
        ))

    def _transport_error(self, error: httpx.RequestError, *, partial: bool) -> LLMError:
        """The docai error for a network-level failure (as opposed to an HTTP error status),
        a body httpx cannot decode (a proxy's false `Content-Encoding`) included."""
        url = self.shown_url
        if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol):
            return ServerUnreachable(self.unreachable_template.format(url=url), url=url)
        if isinstance(error, httpx.TimeoutException):
            return ResponseTimeout(
                messages.LLM_TIMEOUT.format(model=self.model, seconds=self._read_timeout)
            )
        return self._interrupted(drop_reason(error), partial=partial)

    def _interrupted(self, reason: str, *, partial: bool) -> StreamInterrupted:
        template = messages.LLM_INTERRUPTED if partial else messages.LLM_DROPPED
        message = template.format(url=self.shown_url, reason=reason)
        return StreamInterrupted(message, partial=partial)

    def _stream_error(self, error: object) -> StreamError:
        """An `error` object inside a stream that started with HTTP 200."""
        detail = error_text(error)
        return StreamError(
            messages.LLM_STREAM_ERROR.format(url=self.shown_url, detail=detail),
            server_message=detail,
            status=200,
        )

    def _wrong_protocol(self, problem: str, line: str) -> ProtocolMismatch:
        """The server answered, but not in this backend's protocol (`problem` says how)."""
        return ProtocolMismatch(
            messages.LLM_WRONG_PROTOCOL.format(
                url=self.shown_url, protocol=self.protocol, problem=problem,
                line=line[:120], server=self.server_kind, option=self.url_option,
            )
        )

    def _json_object(self, line: str) -> dict[str, Any]:
        """One protocol line as a JSON object; anything else means the server is not
        speaking the protocol."""
        try:
            data = json.loads(line)
        except ValueError:
            raise self._wrong_protocol(messages.LLM_PROBLEM_NOT_JSON, line) from None
        if not isinstance(data, dict):
            raise self._wrong_protocol(messages.LLM_PROBLEM_NOT_OBJECT, line)
        return data


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
