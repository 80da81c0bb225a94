"""Client for OpenAI-compatible chat servers (llama.cpp's llama-server, vLLM, LM Studio, ...).

Base URL rule: the API lives under `/v1`. A base URL whose path already ends in `/v1` is used
as given; any other gets `/v1` appended. So `http://127.0.0.1:8080` and
`http://127.0.0.1:8080/v1` mean the same server.

The OpenAI API has no portable switch for reasoning or for the context window, so `think`
and `num_ctx` are not sent (the server fixes its context size when it loads the model).
Reasoning still arrives as ThinkingDelta when the server separates it (`reasoning_content`,
or `reasoning` on newer vLLM) or inline as `<think>` tags in the content.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Any

import httpx

from docai import messages
from docai.llm.errors import (
    AuthenticationFailed,
    LLMError,
    ModelNotFound,
    ServerBusy,
    ServerError,
    StreamError,
    StreamInterrupted,
    UnsupportedServer,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.http import (
    RetryPolicy,
    error_detail,
    make_client,
    parse_json_object,
    retrying,
    transport_error,
)
from docai.llm.thinking import split_inline_thinking

SSE_DATA = "data:"
SSE_END = "[DONE]"


def openai_base_url(raw: str) -> str:
    """Apply the base URL rule: strip trailing slashes and make the path end in `/v1`."""
    url = raw.strip().rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def chat_body(model: str, messages_: Sequence[Message], *, temperature: float) -> dict[str, Any]:
    """The `/chat/completions` request; `max_tokens` is left to the server on purpose."""
    return {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages_],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": temperature,
    }


class OpenAIClient:
    """A ChatBackend for `POST {base_url}/chat/completions` with server-sent events.

    Like OllamaClient, `stream_chat` is lazy and raises `LLMError`s while iterating.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = 300.0,
        retries: int = 3,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = openai_base_url(base_url)
        self.model = model
        self._read_timeout = read_timeout
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = make_client(
            self.base_url,
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
    ) -> Iterator[Event]:
        body = chat_body(self.model, messages, temperature=temperature)
        return split_inline_thinking(retrying(lambda: self._chat_attempt(body), self._retry))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _chat_attempt(self, body: dict[str, Any]) -> Iterator[Event]:
        yielded = False
        finish_reason: str | None = None
        usage: dict[str, Any] = {}
        try:
            with self._client.stream("POST", "/chat/completions", json=body) as response:
                if response.is_error:
                    response.read()
                    raise self._status_error(response)
                for line in response.iter_lines():
                    if not line.startswith(SSE_DATA):
                        continue  # blank separators, `: comments`, `event:` lines
                    payload = line[len(SSE_DATA) :].strip()
                    if payload == SSE_END:
                        break
                    chunk = parse_json_object(payload, url=self.base_url)
                    if "error" in chunk:
                        raise self._stream_error(chunk)
                    for event in _deltas(chunk):
                        yielded = True
                        yield event
                    finish_reason = _finish_reason(chunk) or finish_reason
                    usage = chunk.get("usage") or usage
                else:
                    if finish_reason is None:
                        template = messages.LLM_INTERRUPTED if yielded else messages.LLM_DROPPED
                        reason = messages.LLM_ENDED_EARLY
                        raise StreamInterrupted(
                            template.format(url=self.base_url, reason=reason), partial=yielded
                        )
        except httpx.TransportError as error:
            raise self._transport_error(error, partial=yielded) from error
        yield Done(
            done_reason=finish_reason,
            prompt_eval_count=usage.get("prompt_tokens"),
            eval_count=usage.get("completion_tokens"),
        )

    def _stream_error(self, chunk: dict[str, Any]) -> StreamError:
        error = chunk["error"]
        detail = str(error.get("message") or error) if isinstance(error, dict) else str(error)
        return StreamError(
            messages.LLM_STREAM_ERROR.format(url=self.base_url, detail=detail),
            server_message=detail,
            status=200,
        )

    def _transport_error(self, error: httpx.TransportError, *, partial: bool) -> LLMError:
        return transport_error(
            error,
            url=self.base_url,
            unreachable_message=messages.LLM_OPENAI_UNREACHABLE.format(url=self.base_url),
            timeout_message=messages.LLM_TIMEOUT.format(
                model=self.model, seconds=self._read_timeout
            ),
            partial=partial,
        )

    def _status_error(self, response: httpx.Response) -> LLMError:
        status = response.status_code
        detail = error_detail(response.text)
        url = self.base_url
        if status in (429, 503):
            attempts = self._retry.retries + 1
            return ServerBusy(
                messages.LLM_BUSY.format(url=url, status=status, attempts=attempts), status=status
            )
        if status == 404 and detail is None:
            return UnsupportedServer(
                messages.LLM_OPENAI_NO_ENDPOINT.format(url=url, path="/chat/completions")
            )
        if status == 404:
            model = self.model
            return ModelNotFound(
                messages.LLM_OPENAI_MODEL_NOT_FOUND.format(url=url, model=model, detail=detail),
                model=model,
            )
        text = detail or response.text.strip()[:200] or response.reason_phrase
        if status in (401, 403):
            return AuthenticationFailed(
                messages.LLM_AUTH_FAILED.format(url=url, status=status, detail=text)
            )
        return ServerError(
            messages.LLM_SERVER_ERROR.format(url=url, status=status, detail=text),
            server_message=text,
            status=status,
        )


def _deltas(chunk: dict[str, Any]) -> Iterator[Event]:
    """Reasoning then answer text from the first choice's delta (usage chunks have none)."""
    choices = chunk.get("choices") or []
    if not choices:
        return
    delta = choices[0].get("delta") or {}
    if reasoning := delta.get("reasoning_content") or delta.get("reasoning"):
        yield ThinkingDelta(str(reasoning))
    if content := delta.get("content"):
        yield TextDelta(str(content))


def _finish_reason(chunk: dict[str, Any]) -> str | None:
    choices = chunk.get("choices") or []
    return choices[0].get("finish_reason") if choices else None
