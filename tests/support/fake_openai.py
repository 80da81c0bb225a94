"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat API the way llama.cpp/vLLM do.

    with FakeOpenAI(reply="Instale com pip.", reasoning="Hmm.") as fake:
        client = OpenAIClient(fake.url + "/v1", "deepseek-r1")

Streaming is server-sent events (`text/event-stream`): `data: {chunk}` lines separated by
blank lines, `choices[0].delta.content` (and `delta.reasoning_content` for the reasoning,
as llama-server and vLLM send it), a last choice chunk with `finish_reason`, then, when
`stream_options.include_usage` is set, a chunk with empty `choices` and `usage`, and finally
`data: [DONE]`. Errors are JSON `{"error": {"message", "type", "code"}}`.

    python -m tests.support.fake_openai --port 0 --reply "texto"   # prints the URL, then serves
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from tests.support.fake_ollama import (
    FakeServer,
    Reply,
    Responder,
    ThinkShape,
    echo_last_user_message,
    serve_until_interrupted,
    split_every,
    split_words,
)


class FakeOpenAI(FakeServer):
    """`/v1/models` and `/v1/chat/completions` with scenario knobs.

    reply, chunks, chunk_size, chunk_delay, first_token_delay, error_after, drop_after,
    fail_first/fail_status: as in FakeOllama.
    reasoning        the reasoning text; think_shape "field" sends it as
                     `delta.reasoning_content`, "inline" as `<think>` tags in the content,
                     "none" not at all
    models           known model ids; others get 404 `The model ... does not exist`
    api_key          when set, requests without `Authorization: Bearer <key>` get 401
    """

    def __init__(
        self,
        *,
        reply: Reply = "Resposta de teste.",
        reasoning: Reply = "Vou procurar nos documentos.",
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
        port: int = 0,
    ) -> None:
        super().__init__(port=port, fail_first=fail_first)
        self.reply = reply
        self.reasoning = reasoning
        self.think_shape = think_shape
        self.chunks = chunks
        self.chunk_size = chunk_size
        self.chunk_delay = chunk_delay
        self.first_token_delay = first_token_delay
        self.error_after = error_after
        self.error_message = error_message
        self.drop_after = drop_after
        self.fail_status = fail_status
        self.models = tuple(models)
        self.api_key = api_key

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
        routes: dict[tuple[str, str], Callable[[Responder, Any], None]] = {
            ("GET", "/v1/models"): self._models,
            ("POST", "/v1/chat/completions"): self._chat,
        }
        route = routes.get((method, path))
        if route is None:
            respond.send_text(404, "Not Found")
            return
        if self.api_key and headers.get("Authorization") != f"Bearer {self.api_key}":
            respond.send_json(401, _error("Invalid API Key", "authentication_error", 401))
            return
        if path == "/v1/chat/completions" and self._take_failure():
            respond.send_json(
                self.fail_status, _error("Server busy", "unavailable_error", self.fail_status)
            )
            return
        route(respond, body or {})

    def _models(self, respond: Responder, body: Any) -> None:
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models]
        respond.send_json(200, {"object": "list", "data": data})

    def _chat(self, respond: Responder, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if model not in self.models:
            message = f"The model `{model}` does not exist."
            respond.send_json(404, _error(message, "NotFoundError", 404))
            return
        pieces = self._pieces(body)
        time.sleep(self.first_token_delay)
        if not body.get("stream"):
            respond.send_json(200, _completion(model, pieces, body))
            return
        respond.start_stream("text/event-stream")
        for sent, (field, text) in enumerate(pieces):
            if sent == self.drop_after:
                respond.abort()
                return
            if sent == self.error_after:
                respond.write_chunk(_event(_error(self.error_message, "server_error", 500)))
                respond.end_stream()
                return
            if sent:
                time.sleep(self.chunk_delay)
            respond.write_chunk(_event(_chunk(model, {field: text}, None)))
        if len(pieces) == self.drop_after:
            respond.abort()
            return
        respond.write_chunk(_event(_chunk(model, {}, "stop")))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage_chunk = _chunk(model, {}, None) | {"choices": [], "usage": _usage(body, pieces)}
            respond.write_chunk(_event(usage_chunk))
        respond.write_chunk(b"data: [DONE]\n\n")
        respond.end_stream()

    def _pieces(self, body: dict[str, Any]) -> list[tuple[str, str]]:
        """(delta field, text) pairs: "reasoning_content" or "content"."""
        reply = self.reply(body) if callable(self.reply) else self.reply
        reasoning = self.reasoning(body) if callable(self.reasoning) else self.reasoning
        split = (lambda t: split_every(t, self.chunk_size)) if self.chunk_size else split_words
        if self.chunks is not None:
            content = list(self.chunks)
        elif self.think_shape == "inline":
            content = split(f"<think>\n{reasoning}\n</think>\n\n{reply}")
        else:
            content = split(reply)
        thoughts = split(reasoning) if self.think_shape == "field" else []
        return [("reasoning_content", t) for t in thoughts] + [("content", t) for t in content]


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


def _usage(body: dict[str, Any], pieces: list[tuple[str, str]]) -> dict[str, int]:
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": len(pieces),
        "total_tokens": prompt + len(pieces),
    }


def _completion(model: str, pieces: list[tuple[str, str]], body: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": "".join(t for f, t in pieces if f == "content")}
    if reasoning := "".join(t for f, t in pieces if f == "reasoning_content"):
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": _usage(body, pieces),
    }


def _event(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake OpenAI-compatible server.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--reply", default="Resposta de teste.")
    parser.add_argument("--echo", action="store_true", help="reply with the last user message")
    parser.add_argument("--reasoning", default="Vou procurar nos documentos.")
    parser.add_argument("--think-shape", choices=("field", "inline", "none"), default="field")
    parser.add_argument("--model", action="append", dest="models", default=None)
    parser.add_argument("--chunk-delay", type=float, default=0.0)
    parser.add_argument("--first-token-delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    serve_until_interrupted(
        FakeOpenAI(
            reply=echo_last_user_message if args.echo else args.reply,
            reasoning=args.reasoning,
            think_shape=args.think_shape,
            models=tuple(args.models or ("deepseek-r1",)),
            chunk_delay=args.chunk_delay,
            first_token_delay=args.first_token_delay,
            port=args.port,
        )
    )


if __name__ == "__main__":
    main()
