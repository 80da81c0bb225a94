"""Client for Ollama's native HTTP API (`/api/chat`, `/api/embed`, ...).

The protocol facts this follows (NDJSON streaming, `message.thinking`, errors inside a 200
stream, 404 for a model that was not pulled) are summarised in the project's notes on the
Ollama API. Every request sets `options.num_ctx` explicitly: the server's default varies by
version and GPU, and a prompt longer than it is silently truncated from the front.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from docai import messages
from docai.llm.errors import (
    ChatUnsupported,
    LLMError,
    MalformedResponse,
    ModelNotFound,
    ServerBusy,
    ServerError,
    StreamError,
    StreamInterrupted,
    ThinkingUnsupported,
    UnsupportedServer,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.http import (
    RetryPolicy,
    call_with_retries,
    error_detail,
    make_client,
    parse_json_object,
    retrying,
    transport_error,
)
from docai.llm.thinking import split_inline_thinking

HEALTH_TEXT = "Ollama is running"


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What `/api/show` says about a model that matters to docai."""

    name: str
    context_length: int | None  # the model's trained maximum, not the server's num_ctx
    capabilities: tuple[str, ...]  # e.g. ("completion", "thinking")


def chat_body(
    model: str,
    messages_: Sequence[Message],
    *,
    think: bool | None,
    num_ctx: int,
    temperature: float,
) -> dict[str, Any]:
    """The `/api/chat` request. `think` is omitted when None so the server picks its default."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages_],
        "stream": True,
        "options": {"num_ctx": num_ctx, "temperature": temperature},
    }
    if think is not None:
        body["think"] = think
    return body


def events_from_chunk(chunk: dict[str, Any], *, url: str) -> Iterator[Event]:
    """The events one NDJSON object holds, in order: reasoning, answer text, then Done.

    The final `done: true` object may itself carry text, so it is read like any other.
    """
    if "error" in chunk:
        detail = str(chunk["error"])
        raise StreamError(
            messages.LLM_STREAM_ERROR.format(url=url, detail=detail),
            server_message=detail,
            status=200,
        )
    message = chunk.get("message") or {}
    if thinking := message.get("thinking"):
        yield ThinkingDelta(str(thinking))
    if content := message.get("content"):
        yield TextDelta(str(content))
    if chunk.get("done"):
        yield Done(
            done_reason=chunk.get("done_reason"),
            prompt_eval_count=chunk.get("prompt_eval_count"),
            eval_count=chunk.get("eval_count"),
            eval_duration_ns=chunk.get("eval_duration"),
            total_duration_ns=chunk.get("total_duration"),
        )


class OllamaClient:
    """A ChatBackend for Ollama, plus the model-management calls docai uses.

    `stream_chat` is lazy: the request is sent when iteration starts, and errors (all
    `LLMError` subclasses) are raised from the iteration.
    """

    name = "ollama"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 300.0,
        retries: int = 3,
        backoff: float = 0.5,
        embed_batch_size: int = 64,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._embed_batch_size = embed_batch_size
        self._client = make_client(
            self.base_url,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            transport=transport,
        )

    # --- ChatBackend -------------------------------------------------------------------
    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        think: bool | None,
        num_ctx: int,
        temperature: float,
    ) -> Iterator[Event]:
        body = chat_body(
            self.model, messages, think=think, num_ctx=num_ctx, temperature=temperature
        )
        return split_inline_thinking(retrying(lambda: self._chat_attempt(body), self._retry))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OllamaClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- other endpoints ---------------------------------------------------------------
    def health(self) -> bool:
        """True when an Ollama server answers at the URL (`GET /`); never raises.

        Uses the connect timeout for the whole request: a status check must not hang for as
        long as a cold model load may.
        """
        try:
            response = self._client.get("/", timeout=self._connect_timeout)
        except httpx.HTTPError:
            return False
        return response.status_code == 200 and HEALTH_TEXT in response.text

    def list_models(self) -> list[str]:
        """Names of the pulled models (`GET /api/tags`), e.g. "deepseek-r1:latest"."""
        data = self._request_json("GET", "/api/tags", model=self.model)
        return [str(entry.get("name") or entry.get("model")) for entry in data.get("models", [])]

    def show(self, model: str | None = None) -> ModelInfo:
        """Context length and capabilities of a model (`POST /api/show`)."""
        name = model or self.model
        data = self._request_json("POST", "/api/show", body={"model": name}, model=name)
        info = data.get("model_info") or {}
        arch = info.get("general.architecture")
        context_length = info.get(f"{arch}.context_length") if arch else None
        return ModelInfo(
            name=name,
            context_length=int(context_length) if context_length is not None else None,
            capabilities=tuple(data.get("capabilities") or ()),
        )

    def embed(self, texts: Sequence[str], *, model: str) -> list[list[float]]:
        """One vector per text, in order (`POST /api/embed`, in batches)."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._embed_batch_size):
            batch = list(texts[start : start + self._embed_batch_size])
            data = self._request_json(
                "POST", "/api/embed", body={"model": model, "input": batch}, model=model
            )
            embeddings = data.get("embeddings")
            # Some servers answer `[null]` for a chat model: a non-numeric vector is malformed.
            if (
                not isinstance(embeddings, list)
                or len(embeddings) != len(batch)
                or not all(_is_vector(vector) for vector in embeddings)
            ):
                raise MalformedResponse(
                    messages.LLM_MALFORMED.format(url=self.base_url, line=str(data)[:120])
                )
            vectors.extend([float(x) for x in vector] for vector in embeddings)
        return vectors

    # --- internals ---------------------------------------------------------------------
    def _chat_attempt(self, body: dict[str, Any]) -> Iterator[Event]:
        yielded = False
        try:
            with self._client.stream("POST", "/api/chat", json=body) as response:
                if response.is_error:
                    response.read()
                    raise self._status_error(response, path="/api/chat", model=self.model)
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    for event in events_from_chunk(
                        parse_json_object(line, url=self.base_url), url=self.base_url
                    ):
                        yielded = True
                        yield event
                        if isinstance(event, Done):
                            return
        except httpx.TransportError as error:
            raise self._transport_error(error, partial=yielded) from error
        template = messages.LLM_INTERRUPTED if yielded else messages.LLM_DROPPED
        raise StreamInterrupted(
            template.format(url=self.base_url, reason=messages.LLM_ENDED_EARLY), partial=yielded
        )

    def _request_json(
        self, method: str, path: str, *, model: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        def attempt() -> dict[str, Any]:
            try:
                response = self._client.request(method, path, json=body)
            except httpx.TransportError as error:
                raise self._transport_error(error, partial=False) from error
            if response.is_error:
                raise self._status_error(response, path=path, model=model)
            return parse_json_object(response.text, url=self.base_url)

        return call_with_retries(attempt, self._retry)

    def _transport_error(self, error: httpx.TransportError, *, partial: bool) -> LLMError:
        return transport_error(
            error,
            url=self.base_url,
            unreachable_message=messages.LLM_OLLAMA_UNREACHABLE.format(url=self.base_url),
            timeout_message=messages.LLM_TIMEOUT.format(
                model=self.model, seconds=self._read_timeout
            ),
            partial=partial,
        )

    def _status_error(self, response: httpx.Response, *, path: str, model: str) -> LLMError:
        status = response.status_code
        detail = error_detail(response.text)
        url = self.base_url
        if status in (429, 503):
            attempts = self._retry.retries + 1
            return ServerBusy(
                messages.LLM_BUSY.format(url=url, status=status, attempts=attempts), status=status
            )
        if status == 404 and detail is None:
            # Ollama's router answers a plain-text "404 page not found" for unknown endpoints.
            return UnsupportedServer(messages.LLM_NOT_OLLAMA.format(url=url, path=path))
        if status == 404:
            return ModelNotFound(
                messages.LLM_OLLAMA_MODEL_NOT_FOUND.format(model=model, url=url), model=model
            )
        if status == 400 and detail and "does not support thinking" in detail:
            return ThinkingUnsupported(
                messages.LLM_THINKING_UNSUPPORTED.format(model=model), model=model
            )
        if status == 400 and detail and "does not support chat" in detail:
            return ChatUnsupported(messages.LLM_CHAT_UNSUPPORTED.format(model=model))
        text = detail or response.text.strip()[:200] or response.reason_phrase
        return ServerError(
            messages.LLM_SERVER_ERROR.format(url=url, status=status, detail=text),
            server_message=text,
            status=status,
        )


def _is_vector(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    )
