"""llama-cpp-python's own OpenAI-compatible server, with every answer's length capped.

`python -m llama_cpp.server` generates until the model stops or the context is full when a
request sets no `max_tokens` (or a large one); on one shared CPU thread that can take
minutes. This runs the very same app (same routes, same SSE stream) behind a small ASGI
wrapper that lowers `max_tokens` on completion requests to `--max-tokens`.

    python -m tests.e2e.openai_server --max-tokens 96 [any `python -m llama_cpp.server` option]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import uvicorn
from llama_cpp.server.app import create_app
from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

Scope = dict[str, Any]
Message = dict[str, Any]


class CapMaxTokens:
    """ASGI wrapper: rewrites the JSON body of `POST .../completions` requests only."""

    def __init__(self, app: Any, cap: int) -> None:
        self.app = app
        self.cap = cap

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if not (scope["type"] == "http" and scope["method"] == "POST"
                and scope["path"].endswith("/completions")):
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        body = self._capped(body)
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        replayed = False

        async def replay() -> Message:
            # The body once, then the real channel, so the app still sees a disconnect.
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app({**scope, "headers": headers}, replay, send)

    def _capped(self, body: bytes) -> bytes:
        try:
            payload = json.loads(body)
        except ValueError:
            return body  # let the app answer a malformed request as it always does
        if not isinstance(payload, dict):
            return body
        requested = payload.get("max_tokens")
        if isinstance(requested, int) and 0 < requested <= self.cap:
            return body
        payload["max_tokens"] = self.cap
        return json.dumps(payload).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-tokens", type=int, default=96, help="cap on every answer")
    add_args_from_model(parser, Settings)
    args = parser.parse_args()
    server = parse_model_from_args(ServerSettings, args)
    app = create_app(server_settings=server,
                     model_settings=[parse_model_from_args(ModelSettings, args)])
    uvicorn.run(CapMaxTokens(app, args.max_tokens), host=server.host, port=server.port)


if __name__ == "__main__":
    main()
