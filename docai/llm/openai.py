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
from typing import Any

import httpx

from docai import messages
from docai.llm.errors import (
    AuthenticationFailed,
    LLMError,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.http import (
    CONNECT_TIMEOUT,
    DEFAULT_RETRY,
    HTTPBackend,
)
from docai.llm.replies import count_field, object_field, text_field
from docai.settings import DEFAULT_READ_TIMEOUT

SSE_DATA = "data:"
SSE_END = "[DONE]"


def openai_base_url(raw: str) -> str:
    """Apply the base URL rule: strip trailing slashes and make the path end in `/v1`."""
    url = raw.strip().rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


class OpenAIClient(HTTPBackend):
    """A ChatBackend for `POST {base_url}/chat/completions` with server-sent events."""

    name = "openai"
    chat_path = "/chat/completions"
    unreachable_template = messages.LLM_OPENAI_UNREACHABLE
    no_endpoint_template = messages.LLM_OPENAI_NO_ENDPOINT
    model_not_found_template = messages.LLM_OPENAI_MODEL_NOT_FOUND
    protocol = messages.LLM_PROTOCOL_OPENAI
    server_kind = messages.LLM_SERVER_OPENAI
    url_option = messages.LLM_OPTION_OPENAI

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        retries: int = DEFAULT_RETRY.retries,
        backoff: float = DEFAULT_RETRY.backoff,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(
            openai_base_url(base_url),
            model,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            retries=retries,
            backoff=backoff,
            transport=transport,
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
        )

    def _chat_body(
        self, messages: Sequence[Message], *, think: bool | None, num_ctx: int,
        temperature: float, max_tokens: int | None,
    ) -> dict[str, Any]:
        """The `/chat/completions` request; `max_tokens` bounds the reply."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": temperature,
        }
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        return body

    def _read_stream(self, lines: Iterator[str]) -> Iterator[Event]:
        """Server-sent events: `data: {chunk}` lines up to `data: [DONE]`.

        A reply in which nothing has the protocol's shape (not one `data:` chunk with
        `choices` or `usage`) comes from another kind of server."""
        yielded = False
        ended = False
        finish_reason: str | None = None
        usage: dict[str, Any] = {}
        first: str | None = None  # the first line that was not a separator or a comment
        recognised = False
        for line in lines:
            payload = line[len(SSE_DATA) :].strip() if line.startswith(SSE_DATA) else None
            if payload == SSE_END:
                ended = True
                break
            if first is None and line.strip() and not line.startswith(":"):
                first = line
            if payload is None:
                continue  # blank separators, `: comments`, `event:` lines
            chunk = self._json_object(payload)
            if "error" in chunk:
                raise self._stream_error(chunk["error"])
            recognised = recognised or _is_completion_chunk(chunk)
            choice = _first_choice(chunk)
            for event in _deltas(choice):
                yielded = True
                yield event
            finish_reason = text_field(choice, "finish_reason") or finish_reason
            usage = object_field(chunk, "usage") or usage
        if first is not None and not recognised:
            problem = messages.LLM_PROBLEM_NO_CHUNK if ended else messages.LLM_PROBLEM_NO_END
            raise self._wrong_protocol(problem, first)
        if not ended and finish_reason is None:
            raise self._interrupted(messages.LLM_ENDED_EARLY, partial=yielded)
        yield Done(
            done_reason=finish_reason,
            prompt_eval_count=count_field(usage, "prompt_tokens"),
            eval_count=count_field(usage, "completion_tokens"),
        )

    def _specific_error(
        self, status: int, detail: str | None, shown: str, model: str
    ) -> LLMError | None:
        if status in (401, 403):
            return AuthenticationFailed(
                messages.LLM_AUTH_FAILED.format(url=self.shown_url, status=status, detail=shown)
            )
        return None


def _is_completion_chunk(chunk: dict[str, Any]) -> bool:
    """Whether an object has the shape of a streamed completion chunk: its `choices` list,
    or (the last chunk, with `include_usage`) its `usage` object."""
    return isinstance(chunk.get("choices"), list) or isinstance(chunk.get("usage"), dict)


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any]:
    """The first choice of a chunk, or {} (usage-only chunks have no choices)."""
    choices = chunk.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _deltas(choice: dict[str, Any]) -> Iterator[Event]:
    """Reasoning then answer text from a choice's delta."""
    delta = object_field(choice, "delta")
    if reasoning := text_field(delta, "reasoning_content") or text_field(delta, "reasoning"):
        yield ThinkingDelta(reasoning)
    if content := text_field(delta, "content"):
        yield TextDelta(content)
