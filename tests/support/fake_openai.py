"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat API the way llama.cpp/vLLM do.

    with FakeOpenAI(reply="Instale com pip.", thinking="Hmm.") as fake:
        client = OpenAIClient(fake.url + "/v1", "deepseek-r1")

Streaming is server-sent events (`text/event-stream`): `data: {chunk}` lines separated by
blank lines, `choices[0].delta.content` (and `delta.reasoning_content` for the reasoning,
as llama-server and vLLM send it), a last choice chunk with `finish_reason`, then, when
`stream_options.include_usage` is set, a chunk with empty `choices` and `usage`, and finally
`data: [DONE]`. Errors are JSON `{"error": {"message", "type", "code"}}`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from tests.support.fake_ollama import (
    FakeChatServer,
    Reply,
    Responder,
    ThinkShape,
)


class FakeOpenAI(FakeChatServer):
    """`/v1/chat/completions` with the FakeChatServer knobs ("field" reasoning is sent as
    `delta.reasoning_content`), and:

    models           known model ids; others get 404 `The model ... does not exist`
    api_key          when set, requests without `Authorization: Bearer <key>` get 401
    raw_lines        exact body lines of a streamed chat (hand-made or malformed events)
    """

    def __init__(
        self,
        *,
        reply: Reply = "Resposta de teste.",
        thinking: Reply = "Vou procurar nos documentos.",
        think_shape: ThinkShape = "field",
        chunks: Sequence[str] | None = None,
        chunk_size: int | None = None,
        chunk_delay: float = 0.0,
        first_token_delay: float = 0.0,
        error_after: int | None = None,
        error_message: str = "the model crashed",
        drop_after: int | None = None,
        fail_first: int = 0,
        fail_status: int = 503,
        models: Sequence[str] = ("deepseek-r1",),
        api_key: str | None = None,
        raw_lines: Sequence[str] | None = None,
        port: int = 0,
    ) -> None:
        super().__init__(
            reply=reply, thinking=thinking, think_shape=think_shape, chunks=chunks,
            chunk_size=chunk_size, chunk_delay=chunk_delay, first_token_delay=first_token_delay,
            error_after=error_after, error_message=error_message, drop_after=drop_after,
            fail_first=fail_first, fail_status=fail_status, port=port,
        )
        self.models = tuple(models)
        self.api_key = api_key
        self.raw_lines = raw_lines

    def __enter__(self) -> FakeOpenAI:
        self.start()
        return self

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat request, including failed attempts (retries)."""
        return self.bodies("/v1/chat/completions")

    def handle(
        self, respond: Responder, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> None:
        if (method, path) != ("POST", "/v1/chat/completions"):
            respond.send_text(404, "Not Found")
            return
        if self.api_key and headers.get("Authorization") != f"Bearer {self.api_key}":
            respond.send_json(401, _error("Invalid API Key", "authentication_error", 401))
            return
        if self._take_failure():
            respond.send_json(
                self.fail_status, _error("Server busy", "unavailable_error", self.fail_status)
            )
            return
        self._chat(respond, body or {})

    def _chat(self, respond: Responder, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if model not in self.models:
            message = f"The model `{model}` does not exist."
            respond.send_json(404, _error(message, "NotFoundError", 404))
            return
        reasoning, content = self.pieces(body, inline=True, field=True)
        time.sleep(self.first_token_delay)
        if self.raw_lines is not None:
            respond.start_stream("text/event-stream")
            for line in self.raw_lines:
                respond.write_chunk(line.encode() + b"\n")
            respond.end_stream()
            return
        lines = [_event(_chunk(model, {"reasoning_content": t}, None)) for t in reasoning]
        lines += [_event(_chunk(model, {"content": t}, None)) for t in content]
        end = [_event(_chunk(model, {}, "stop"))]
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = _usage(body, len(lines))
            end.append(_event(_chunk(model, {}, None) | {"choices": [], "usage": usage}))
        end.append(b"data: [DONE]\n\n")
        error = _event(_error(self.error_message, "server_error", 500))
        self.stream(respond, "text/event-stream", lines, error_line=error, end_lines=end)


def _error(message: str, kind: str, code: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": code}}


def _chunk(model: str, delta: dict[str, str], finish_reason: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _usage(body: dict[str, Any], pieces: int) -> dict[str, int]:
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    return {"prompt_tokens": prompt, "completion_tokens": pieces, "total_tokens": prompt + pieces}


def _event(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"
