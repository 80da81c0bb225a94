"""Embedding servers on 127.0.0.1 with deterministic vectors, for the dense tests.

`EmbeddingOllama` is the shared fake Ollama plus what choosing a model needs (`/api/tags`,
`/api/show` with `capabilities`), Ollama's answer when a model cannot embed, a knob to
fail every embed request after the first N (a server that dies mid-pass) and one to make
each embed request take a while (a slow CPU, so a pass can be caught half-way), and one to
change the size of the vectors request by request (a server that swaps models under a name).
`FakeOpenAIEmbeddings` answers `POST /v1/embeddings` as the OpenAI API does (`data` items
with `index`, sent in reverse order, as a server may).
"""

from __future__ import annotations

import time
from typing import Any

from tests.support.fake_ollama import FakeOllama, FakeServer, Responder, hashed_embedding


class EmbeddingOllama(FakeOllama):
    def __init__(
        self, *, embed_fail_after: int | None = None, embed_delay: float = 0.0,
        embed_sizes: tuple[int, ...] = (), **knobs: Any
    ) -> None:
        super().__init__(**knobs)
        self.embed_fail_after = embed_fail_after
        self.embed_delay = embed_delay
        # Request n answers vectors of embed_sizes[n % len]; empty: the usual size.
        self.embed_sizes = embed_sizes

    def embedded_texts(self) -> list[str]:
        """Every text sent to /api/embed, in order."""
        return [text for body in self.bodies("/api/embed") for text in body["input"]]

    def handle(
        self, respond: Responder, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> None:
        if (method, path) == ("GET", "/api/tags"):
            respond.send_json(200, {"models": [
                {"name": m.name, "model": m.name, "size": 1, "digest": "0" * 12, "details": {}}
                for m in self.models]})
            return
        if (method, path) == ("POST", "/api/show"):
            model = self._model_or_404(respond, body or {})
            if model is not None:
                respond.send_json(200, {"capabilities": list(model.capabilities),
                                        "details": {}, "model_info": {}})
            return
        if path == "/api/embed":
            time.sleep(self.embed_delay)
            model = self._find(str((body or {}).get("model", "")))
            if model is not None and "embedding" not in model.capabilities:
                respond.send_json(400, {"error": "this model does not support embeddings"})
                return
            done = len(self.bodies("/api/embed")) - 1
            if self.embed_fail_after is not None and done >= self.embed_fail_after:
                respond.send_json(500, {"error": "llama runner process has terminated"})
                return
            if self.embed_sizes and model is not None:
                size = self.embed_sizes[done % len(self.embed_sizes)]
                texts = body.get("input", [])
                texts = [texts] if isinstance(texts, str) else list(texts)
                respond.send_json(200, {"model": body["model"], "embeddings": [
                    hashed_embedding(text, size) for text in texts]})
                return
        super().handle(respond, method, path, body, headers)


class FakeOpenAIEmbeddings(FakeServer):
    """`POST /v1/embeddings`; `api_key`, when set, is required as a Bearer token."""

    def __init__(self, *, api_key: str | None = None, dimensions: int = 48) -> None:
        super().__init__()
        self.api_key = api_key
        self.dimensions = dimensions

    def __enter__(self) -> FakeOpenAIEmbeddings:
        self.start()
        return self

    def handle(
        self, respond: Responder, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> None:
        if (method, path) != ("POST", "/v1/embeddings"):
            respond.send_text(404, "404 page not found")
            return
        if self.api_key is not None and headers.get("Authorization") != f"Bearer {self.api_key}":
            respond.send_json(401, {"error": {"message": "Incorrect API key provided",
                                              "type": "invalid_request_error"}})
            return
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        items = [{"object": "embedding", "index": i,
                  "embedding": hashed_embedding(text, self.dimensions)}
                 for i, text in enumerate(texts)]
        respond.send_json(200, {"object": "list", "model": body.get("model"),
                                "data": list(reversed(items)),
                                "usage": {"prompt_tokens": 1, "total_tokens": 1}})
