"""A small Ollama look-alike over llama.cpp, so the e2e suite can run docai's default backend.

Real Ollama is a large binary with its own model store; the test machine only has
llama-cpp-python and one tiny GGUF. This server speaks the part of Ollama's HTTP API that
docai uses (see ../shared/ollama-api.md) as faithfully as the tests need: the same paths,
NDJSON streaming with chunked transfer, the same final metrics (real token counts and
nanosecond durations), the same status codes and error bodies, silent front truncation of
an over-long prompt, and a model reload when a request asks for another `num_ctx`.

    python -m tests.support.ollama_llamacpp --model PATH --port N [--max-tokens 96]

`--max-tokens` caps every answer so a test answer takes seconds on one CPU thread.
"""

from __future__ import annotations

import argparse
import codecs
import hashlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import llama_cpp
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

OLLAMA_VERSION = "0.12.6"
# Ollama's defaults (api.DefaultOptions) so answers look like Ollama's, not llama.cpp's.
DEFAULT_TEMPERATURE = 0.8
TOP_K = 40
TOP_P = 0.9
REPEAT_PENALTY = 1.1
# Tokens Ollama keeps from the start of a prompt when it cuts an over-long one.
NUM_KEEP = 4
# llama.cpp's GGUF `general.file_type` codes for the quantisations Ollama names.
FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
              10: "Q2_K", 12: "Q3_K_M", 15: "Q4_K_M", 17: "Q5_K_M", 18: "Q6_K"}


class RequestError(Exception):
    """A request Ollama would refuse: carries the status and the `error` text it answers."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Finished:
    """What the last NDJSON object reports once generation ends."""

    done_reason: str
    load_ns: int
    prompt_eval_count: int
    prompt_eval_ns: int
    eval_count: int
    eval_ns: int


def created_at() -> str:
    """Ollama's `created_at`: RFC 3339 UTC with a `Z` suffix."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def full_name(name: str) -> str:
    """Ollama treats `smollm2` and `smollm2:latest` as the same model."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _metadata_value(raw: str) -> int | float | str:
    """llama_cpp hands GGUF metadata back as strings; Ollama's `model_info` has numbers."""
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


class ModelHost:
    """One llama.cpp model behind a lock: Ollama also runs one request at a time per model
    (by default), and a llama.cpp context is not safe to share between threads.

    It renders the model's own chat template and drives `Llama.generate` itself, which is
    what `create_chat_completion` does inside, because it needs the exact prompt tokens:
    they make `prompt_eval_count` real and allow Ollama's truncation of an over-long prompt.
    """

    def __init__(self, model_path: Path, name: str, num_ctx: int, max_tokens: int) -> None:
        self.path = model_path
        self.name = full_name(name)
        self.max_tokens = max_tokens
        self.default_num_ctx = num_ctx
        self._lock = threading.Lock()
        self._llama = self._load(num_ctx)
        self.metadata = dict(self._llama.metadata)
        self.train_ctx = int(self.metadata.get("llama.context_length", num_ctx))
        self._formatter = Jinja2ChatFormatter(
            template=self.metadata["tokenizer.chat_template"],
            eos_token=self._llama.detokenize([self._llama.token_eos()], special=True).decode(),
            bos_token=self._llama.detokenize([self._llama.token_bos()], special=True).decode(),
        )
        self.digest = hashlib.sha256(model_path.read_bytes()).hexdigest()

    def _load(self, num_ctx: int) -> llama_cpp.Llama:
        return llama_cpp.Llama(str(self.path), n_ctx=num_ctx, n_threads=1, n_threads_batch=1,
                               verbose=False)

    def knows(self, name: str) -> bool:
        return full_name(name) == self.name

    def details(self) -> dict[str, Any]:
        family = str(self.metadata.get("general.architecture", ""))
        file_type = int(self.metadata.get("general.file_type", -1))
        return {"parent_model": "", "format": "gguf", "family": family, "families": [family],
                "parameter_size": self.metadata.get("general.size_label", ""),
                "quantization_level": FILE_TYPES.get(file_type, "unknown")}

    def model_info(self) -> dict[str, Any]:
        return {key: _metadata_value(value) for key, value in self.metadata.items()
                if not key.startswith("tokenizer.")}

    def chat(self, messages: list[dict[str, str]], num_ctx: int | None,
             temperature: float, num_predict: int) -> Iterator[str | Finished]:
        """Answer text pieces as they are sampled, then one Finished.

        The lock is held until the generator ends or is closed (client gone), so a second
        request waits its turn instead of corrupting the context.
        """
        with self._lock:
            load_ns = self._ensure_ctx(min(num_ctx or self.default_num_ctx, self.train_ctx))
            limit = self.max_tokens if num_predict <= 0 else min(num_predict, self.max_tokens)
            prompt = self._prompt_tokens(messages, limit)
            yield from self._generate(prompt, temperature, limit, load_ns)

    def _ensure_ctx(self, num_ctx: int) -> int:
        """Reload with another context size, as Ollama does; return the load time in ns."""
        if self._llama.n_ctx() == num_ctx:
            return 0
        started = time.monotonic_ns()
        self._llama.close()
        self._llama = self._load(num_ctx)
        return time.monotonic_ns() - started

    def _render(self, messages: list[dict[str, str]]) -> list[int]:
        result = self._formatter(messages=messages)
        return self._llama.tokenize(result.prompt.encode("utf-8"),
                                    add_bos=not result.added_special, special=True)

    def _prompt_tokens(self, messages: list[dict[str, str]], answer_room: int) -> list[int]:
        """Fit the chat into the context like Ollama: drop the oldest non-system messages
        (keeping the last one), then cut tokens after the first NUM_KEEP, silently. Ollama
        makes answer room by shifting the context mid-answer; a fixed reserve is simpler."""
        budget = self._llama.n_ctx() - min(answer_room, self._llama.n_ctx() // 2)
        kept = list(messages)
        tokens = self._render(kept)
        while len(tokens) > budget:
            droppable = [i for i, m in enumerate(kept[:-1]) if m.get("role") != "system"]
            if not droppable:
                break
            del kept[droppable[0]]
            tokens = self._render(kept)
        if len(tokens) > budget:
            print(f"truncating input prompt limit={budget} prompt={len(tokens)} "
                  f"keep={NUM_KEEP}", file=sys.stderr)
            tokens = tokens[:NUM_KEEP] + tokens[len(tokens) - budget + NUM_KEEP:]
        return tokens

    def _generate(self, prompt: list[int], temperature: float, limit: int,
                  load_ns: int) -> Iterator[str | Finished]:
        limit = min(limit, self._llama.n_ctx() - len(prompt))
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        vocab = llama_cpp.llama_model_get_vocab(self._llama.model)
        started = time.monotonic_ns()
        first_token_at = started
        count = 0
        reason = "length"
        for token in self._llama.generate(prompt, temp=temperature, top_k=TOP_K, top_p=TOP_P,
                                          min_p=0.0, repeat_penalty=REPEAT_PENALTY):
            count += 1
            if count == 1:
                first_token_at = time.monotonic_ns()
            if llama_cpp.llama_token_is_eog(vocab, token):
                reason = "stop"
                break
            if text := decoder.decode(self._llama.detokenize([token])):
                yield text
            if count >= limit:
                break
        if tail := decoder.decode(b"", final=True):
            yield tail
        yield Finished(done_reason=reason, load_ns=load_ns, prompt_eval_count=len(prompt),
                       prompt_eval_ns=first_token_at - started, eval_count=count,
                       eval_ns=time.monotonic_ns() - first_token_at)


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """The fields of `POST /api/chat` this server acts on, validated like Ollama does."""

    model: str
    messages: list[dict[str, str]]
    stream: bool
    num_ctx: int | None
    num_predict: int
    temperature: float

    @classmethod
    def parse(cls, body: dict[str, Any], host: ModelHost) -> ChatRequest:
        model = body.get("model")
        if not model:
            raise RequestError(HTTPStatus.BAD_REQUEST, "model is required")
        if not host.knows(model):
            raise RequestError(HTTPStatus.NOT_FOUND, f"model '{model}' not found")
        think = body.get("think")
        if think is True or think in ("low", "medium", "high"):
            raise RequestError(HTTPStatus.BAD_REQUEST,
                               f"{json.dumps(model)} does not support thinking")
        try:
            options = body.get("options") or {}
            messages = [{"role": str(m["role"]), "content": str(m.get("content") or "")}
                        for m in body.get("messages") or []]
            return cls(model=model, messages=messages,
                       stream=body.get("stream", True) is not False,
                       num_ctx=int(options["num_ctx"]) if "num_ctx" in options else None,
                       num_predict=int(options.get("num_predict", -1)),
                       temperature=float(options.get("temperature", DEFAULT_TEMPERATURE)))
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"invalid request: {error!r}") from error


def _final_fields(finished: Finished, started_ns: int) -> dict[str, Any]:
    return {"done_reason": finished.done_reason, "done": True,
            "total_duration": time.monotonic_ns() - started_ns,
            "load_duration": finished.load_ns,
            "prompt_eval_count": finished.prompt_eval_count,
            "prompt_eval_duration": finished.prompt_eval_ns,
            "eval_count": finished.eval_count, "eval_duration": finished.eval_ns}


class OllamaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], host: ModelHost) -> None:
        super().__init__(address, OllamaHandler)
        self.model_host = host

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client closing a kept-alive connection is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class OllamaHandler(BaseHTTPRequestHandler):
    """Routes and wire format. HTTP/1.1 so streaming uses chunked transfer, as Ollama's does."""

    protocol_version = "HTTP/1.1"
    server: OllamaServer

    def do_HEAD(self) -> None:
        if self.path == "/":
            self._send(HTTPStatus.OK, b"", "text/plain; charset=utf-8")
        else:
            self._not_found()

    def do_GET(self) -> None:
        host = self.server.model_host
        if self.path == "/":
            self._send(HTTPStatus.OK, b"Ollama is running", "text/plain; charset=utf-8")
        elif self.path == "/api/version":
            self._json(HTTPStatus.OK, {"version": OLLAMA_VERSION})
        elif self.path == "/api/tags":
            self._json(HTTPStatus.OK, {"models": [self._tag(host)]})
        else:
            self._not_found()

    def do_POST(self) -> None:
        try:
            body = self._read_json()
            if self.path == "/api/show":
                self._show(body)
            elif self.path == "/api/chat":
                self._chat(ChatRequest.parse(body, self.server.model_host))
            else:
                self._not_found()
        except RequestError as error:
            self._json(error.status, {"error": str(error)})

    def _read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length == 0:
            raise RequestError(HTTPStatus.BAD_REQUEST, "missing request body")
        try:
            body = json.loads(self.rfile.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, str(error)) from error
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "request body must be a JSON object")
        return body

    def _tag(self, host: ModelHost) -> dict[str, Any]:
        return {"name": host.name, "model": host.name, "modified_at": self._modified_at(host),
                "size": host.path.stat().st_size, "digest": host.digest,
                "details": host.details()}

    @staticmethod
    def _modified_at(host: ModelHost) -> str:
        mtime = datetime.fromtimestamp(host.path.stat().st_mtime, UTC)
        return mtime.isoformat().replace("+00:00", "Z")

    def _show(self, body: dict[str, Any]) -> None:
        host = self.server.model_host
        name = body.get("model") or body.get("name") or ""
        if not host.knows(name):
            raise RequestError(HTTPStatus.NOT_FOUND, f"model '{name}' not found")
        template = host.metadata.get("tokenizer.chat_template", "")
        self._json(HTTPStatus.OK, {
            "modelfile": f"FROM {host.path}\nTEMPLATE \"\"\"{template}\"\"\"\n",
            "parameters": 'stop                           "<|im_end|>"',
            "template": template, "details": host.details(), "model_info": host.model_info(),
            "capabilities": ["completion"], "modified_at": self._modified_at(host)})

    def _chat(self, request: ChatRequest) -> None:
        started = time.monotonic_ns()
        head = {"model": request.model, "created_at": created_at()}
        if not request.messages:  # Ollama's "load the model" request
            self._json(HTTPStatus.OK, {**head, "message": {"role": "assistant", "content": ""},
                                       "done_reason": "load", "done": True})
            return
        events = self.server.model_host.chat(request.messages, request.num_ctx,
                                             request.temperature, request.num_predict)
        with closing(events):
            if request.stream:
                self._stream(request.model, events, started)
            else:
                self._whole(head, events, started)

    def _whole(self, head: dict[str, Any], events: Iterator[str | Finished],
               started: int) -> None:
        pieces: list[str] = []
        try:
            for event in events:
                if isinstance(event, Finished):
                    self._json(HTTPStatus.OK, {
                        **head, "message": {"role": "assistant", "content": "".join(pieces)},
                        **_final_fields(event, started)})
                else:
                    pieces.append(event)
        except Exception as error:  # noqa: BLE001 - Ollama answers 500 with a JSON error
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(error)})

    def _stream(self, model: str, events: Iterator[str | Finished], started: int) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for event in events:
                line: dict[str, Any] = {"model": model, "created_at": created_at()}
                if isinstance(event, Finished):
                    line |= {"message": {"role": "assistant", "content": ""},
                             **_final_fields(event, started)}
                else:
                    line |= {"message": {"role": "assistant", "content": event}, "done": False}
                self._chunk(line)
        except ConnectionError:
            self.close_connection = True  # the client left; closing `events` stops the model
            return
        except Exception as error:  # noqa: BLE001 - Ollama reports mid-stream failures in-band
            self._chunk({"error": str(error)})
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                   "application/json; charset=utf-8")

    def _not_found(self) -> None:
        # Ollama's router answers unknown paths with Go's plain-text 404, not JSON.
        self._send(HTTPStatus.NOT_FOUND, b"404 page not found", "text/plain")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="GGUF file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--name", default="smollm2", help="name the model is served under")
    parser.add_argument("--num-ctx", type=int, default=8192,
                        help="context when a request sets no options.num_ctx")
    parser.add_argument("--max-tokens", type=int, default=96, help="cap on every answer")
    args = parser.parse_args(argv)
    host = ModelHost(args.model, args.name, args.num_ctx, args.max_tokens)
    with OllamaServer((args.host, args.port), host) as server:
        print(f"ollama shim serving {host.name} on http://{args.host}:{args.port}",
              file=sys.stderr, flush=True)
        with suppress(KeyboardInterrupt):
            server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
