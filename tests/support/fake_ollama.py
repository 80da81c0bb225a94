"""A real HTTP server on 127.0.0.1 that speaks Ollama's API, with knobs for failure scenarios.

Use it as a context manager from any test; `.url` is the base URL to give docai
(`--ollama-url` or OLLAMA_HOST), and `.requests` records every request body:

    with FakeOllama(reply="Instale com pip.", think_shape="inline") as fake:
        client = OllamaClient(fake.url, "deepseek-r1")
        ...
        assert fake.chat_requests[-1]["options"]["num_ctx"] == 8192

Knobs are plain attributes, read on every request, so a test may change them between
requests. For a separate process (pty tests):

    python -m tests.support.fake_ollama --port 0 --reply "texto"   # prints the URL, then serves

The wire format follows Ollama's documentation: NDJSON (`application/x-ndjson`) sent with
chunked transfer encoding, chat chunks `{"model", "created_at", "message": {"role",
"content", "thinking"?}, "done": false}`, a final `done: true` object with `done_reason` and
the metrics, JSON `{"error": ...}` bodies, and a plain-text `404 page not found` for unknown
paths. `FakeServer` (the HTTP plumbing) is shared with `tests.support.fake_openai`.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Reply = str | Callable[[dict[str, Any]], str]
ThinkShape = Literal["field", "inline", "none"]

EMBED_DIMENSIONS = 64
HOLD_LIMIT_S = 120.0  # a held stream goes on by itself after this, should a test not release it


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    body: Any  # the parsed JSON body, or None


@dataclass(frozen=True, slots=True)
class FakeModel:
    name: str  # with tag: "deepseek-r1:latest"
    capabilities: tuple[str, ...] = ("completion", "thinking")
    family: str = "qwen2"  # also the `general.architecture` of /api/show's model_info
    parameter_size: str = "7.6B"
    context_length: int = 131072
    size: int = 4_683_087_332


DEFAULT_MODELS = (
    FakeModel("deepseek-r1:latest"),
    FakeModel("llama3.2:latest", ("completion", "tools"), "llama", "3.2B", 131072, 2_019_393_189),
    FakeModel("nomic-embed-text:latest", ("embedding",), "nomic-bert", "137M", 2048, 274_302_450),
    FakeModel("all-minilm:latest", ("embedding",), "bert", "23M", 512, 45_960_996),
)


def split_words(text: str) -> list[str]:
    """Word-sized pieces (each word with its trailing space), like a model's token stream."""
    return re.findall(r"\s*\S+\s*|\s+", text)


def split_every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def hashed_embedding(text: str, dimensions: int = EMBED_DIMENSIONS) -> list[float]:
    """A deterministic, L2-normalised bag-of-words vector: texts sharing words are similar."""
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        vector[digest[0] % dimensions] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Responder:
    """Writes one HTTP response; streaming uses chunked transfer encoding like Ollama's."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self._handler = handler

    def send_json(self, status: int, payload: Any) -> None:
        self.send_bytes(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def send_text(self, status: int, text: str) -> None:
        self.send_bytes(status, text.encode(), "text/plain; charset=utf-8")

    def send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()

    def redirect(self, status: int, location: str) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
        handler.wfile.flush()

    def start_stream(self, content_type: str, status: int = 200) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.flush()

    def write_chunk(self, data: bytes) -> None:
        self._handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self._handler.wfile.flush()

    def end_stream(self) -> None:
        self._handler.wfile.write(b"0\r\n\r\n")
        self._handler.wfile.flush()

    def abort(self) -> None:
        """Drop the connection mid-body, as a crashed server would."""
        self._handler.close_connection = True
        self._handler.connection.shutdown(socket.SHUT_RDWR)


class _ThreadingServer(ThreadingHTTPServer):
    daemon_threads = True  # a handler still sleeping (first_token_delay) must not block exit
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early (a timeout test) is expected, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


class FakeServer:
    """HTTP plumbing shared by the fakes: a ThreadingHTTPServer on 127.0.0.1 in a thread."""

    def __init__(self, *, port: int = 0, fail_first: int = 0) -> None:
        self._port = port
        self.fail_first = fail_first
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------
    def start(self) -> FakeServer:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                fake._dispatch(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                fake._dispatch(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep test output clean

        server = _ThreadingServer(("127.0.0.1", self._port), Handler)
        self._server = server
        # A short poll interval keeps stop() (which waits for the next poll) fast in tests.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start the server first"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- records ---------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def bodies(self, path: str) -> list[Any]:
        """The JSON bodies of every request made to `path`, in order."""
        return [r.body for r in self.requests if r.path == path]

    # --- internals -------------------------------------------------------------------------
    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path = handler.path.split("?", 1)[0]
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            self._requests.append(RecordedRequest(method, path, body))
        respond = Responder(handler)
        if raw and body is None:
            respond.send_json(400, {"error": "invalid character in JSON body"})
            return
        self.handle(respond, method, path, body, dict(handler.headers))

    def _take_failure(self) -> bool:
        """Consume one of the `fail_first` failures, if any remain."""
        with self._lock:
            if self.fail_first > 0:
                self.fail_first -= 1
                return True
            return False

    def handle(
        self,
        respond: Responder,
        method: str,
        path: str,
        body: Any,
        headers: dict[str, str],
    ) -> None:
        raise NotImplementedError



class FakeChatServer(FakeServer):
    """The scenario knobs and the streaming loop both fake model servers share.

    reply            the answer text, or a function of the request body returning it
    thinking         the reasoning text (same forms as reply)
    think_shape      "field": reasoning in its own field; "inline": `<think>...</think>` in
                     the content; "none": never any reasoning
    chunks           exact content pieces to stream (overrides reply and inline thinking)
    chunk_size       characters per content chunk; None: one word per chunk
    chunk_delay      seconds between chunks; first_token_delay: before the response starts
                     (a server sends nothing while it loads the model)
    error_after      after N chunks, send an error object in the 200 stream
    drop_after       after N chunks, drop the connection without ending the body
    fail_first       answer the next N generation requests with fail_status (503/429)
    hold_after       after N chunks, send nothing more until `release()` (a test acts in a
                     pause of the stream it knows is there, instead of sleeping into one)
    """

    def __init__(
        self,
        *,
        reply: Reply,
        thinking: Reply,
        think_shape: ThinkShape,
        chunks: Sequence[str] | None,
        chunk_size: int | None,
        chunk_delay: float,
        first_token_delay: float,
        error_after: int | None,
        error_message: str,
        drop_after: int | None,
        fail_first: int,
        fail_status: int,
        port: int,
        hold_after: int | None = None,
    ) -> None:
        super().__init__(port=port, fail_first=fail_first)
        self.hold_after = hold_after
        self._released = threading.Event()
        self.reply = reply
        self.thinking = thinking
        self.think_shape = think_shape
        self.chunks = chunks
        self.chunk_size = chunk_size
        self.chunk_delay = chunk_delay
        self.first_token_delay = first_token_delay
        self.error_after = error_after
        self.error_message = error_message
        self.drop_after = drop_after
        self.fail_status = fail_status

    def pieces(
        self, body: dict[str, Any], *, inline: bool, field: bool
    ) -> tuple[list[str], list[str]]:
        """(reasoning pieces, content pieces) of one reply, per the knobs; `inline`/`field`
        say whether this request may get reasoning in that shape at all."""
        reply = _resolve(self.reply, body)
        thinking = _resolve(self.thinking, body)
        split = (lambda t: split_every(t, self.chunk_size)) if self.chunk_size else split_words
        if self.chunks is not None:
            content = list(self.chunks)
        elif self.think_shape == "inline" and inline:
            content = split(f"<think>\n{thinking}\n</think>\n\n{reply}")
        else:
            content = split(reply)
        reasoning = split(thinking) if self.think_shape == "field" and field else []
        return reasoning, content

    def release(self) -> None:
        """A stream held by `hold_after` goes on."""
        self._released.set()

    def stream(
        self,
        respond: Responder,
        content_type: str,
        lines: list[bytes],
        *,
        error_line: bytes,
        end_lines: list[bytes],
    ) -> None:
        """Send `lines` one by one, then `end_lines`, with the delay, error and drop knobs."""
        respond.start_stream(content_type)
        for sent, line in enumerate(lines):
            if sent == self.drop_after:
                respond.abort()
                return
            if sent == self.error_after:
                respond.write_chunk(error_line)
                respond.end_stream()
                return
            if sent == self.hold_after:
                self._released.wait(HOLD_LIMIT_S)
            if sent:
                time.sleep(self.chunk_delay)
            respond.write_chunk(line)
        if len(lines) == self.drop_after:
            respond.abort()
            return
        for line in end_lines:
            respond.write_chunk(line)
        respond.end_stream()


class FakeOllama(FakeChatServer):
    """Ollama's API with the FakeChatServer knobs, and:

    think_shape      "field": reasoning in `message.thinking` when think is true or omitted
                     (a new server); "inline": `<think>` tags whatever `think` says (a server
                     before 0.9)
    raw_lines        exact body lines of a streamed chat (hand-made or malformed chunks)
    models           the pulled models; others get 404 `model '<name>' not found`; think=true
                     on a model without "thinking" gets 400; chat on an embedding model 400
    missing_paths    endpoints this "old server" lacks (plain-text 404 page not found)
    list_capabilities  False: `/api/show` omits `capabilities`, as servers before 0.6.4 do
    basic_auth       (user, password): as behind an authenticating proxy, every request
                     without that Basic authorisation gets 401
    ignore_num_predict  False (Ollama's way): a chat stops after `options.num_predict`
                     chunks with done_reason "length"; True: a server that runs on
    raw_body         a callable giving the exact bytes of a chat reply's body, sent in chunks
                     with `raw_status` (a hostile or broken server: a line with no end, a huge
                     error page)
    redirect_to      chat requests get HTTP 307 to this address
    """

    def __init__(
        self,
        *,
        reply: Reply = "Resposta de teste.",
        thinking: Reply = "Vou procurar nos documentos.",
        think_shape: ThinkShape = "field",
        chunks: Sequence[str] | None = None,
        raw_lines: Sequence[str] | None = None,
        chunk_size: int | None = None,
        chunk_delay: float = 0.0,
        first_token_delay: float = 0.0,
        error_after: int | None = None,
        error_message: str = "an error was encountered while running the model",
        drop_after: int | None = None,
        fail_first: int = 0,
        fail_status: int = 503,
        models: Sequence[FakeModel] = DEFAULT_MODELS,
        missing_paths: Sequence[str] = (),
        list_capabilities: bool = True,
        basic_auth: tuple[str, str] | None = None,
        ignore_num_predict: bool = False,
        raw_body: Callable[[], Iterable[bytes]] | None = None,
        raw_status: int = 200,
        redirect_to: str | None = None,
        port: int = 0,
        hold_after: int | None = None,
    ) -> None:
        super().__init__(
            reply=reply, thinking=thinking, think_shape=think_shape, chunks=chunks,
            chunk_size=chunk_size, chunk_delay=chunk_delay, first_token_delay=first_token_delay,
            error_after=error_after, error_message=error_message, drop_after=drop_after,
            fail_first=fail_first, fail_status=fail_status, port=port, hold_after=hold_after,
        )
        self.raw_lines = raw_lines
        self.models = tuple(models)
        self.missing_paths = tuple(missing_paths)
        self.list_capabilities = list_capabilities
        self.basic_auth = basic_auth
        self.ignore_num_predict = ignore_num_predict
        self.raw_body = raw_body
        self.raw_status = raw_status
        self.redirect_to = redirect_to

    def __enter__(self) -> FakeOllama:
        self.start()
        return self

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every `/api/chat` request, including failed attempts (retries)."""
        return self.bodies("/api/chat")

    # --- routing ---------------------------------------------------------------------------
    def handle(
        self, respond: Responder, method: str, path: str, body: Any, headers: dict[str, str]
    ) -> None:
        routes: dict[tuple[str, str], Callable[[Responder, Any], None]] = {
            ("GET", "/"): lambda r, _: r.send_text(200, "Ollama is running"),
            ("GET", "/api/version"): lambda r, _: r.send_json(200, {"version": "0.12.6"}),
            ("GET", "/api/tags"): self._tags,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/embed"): self._embed,
        }
        if self.basic_auth is not None:
            expected = base64.b64encode(":".join(self.basic_auth).encode()).decode()
            if headers.get("Authorization") != f"Basic {expected}":
                respond.send_json(401, {"error": "unauthorized"})
                return
        route = routes.get((method, path))
        if route is None or path in self.missing_paths:
            respond.send_text(404, "404 page not found")
            return
        if path in ("/api/chat", "/api/embed") and self._take_failure():
            respond.send_json(self.fail_status, {"error": _busy_text(self.fail_status)})
            return
        route(respond, body or {})

    def _find(self, name: str) -> FakeModel | None:
        wanted = name if ":" in name else name + ":latest"
        return next((m for m in self.models if m.name == wanted), None)

    def _model_or_404(self, respond: Responder, body: dict[str, Any]) -> FakeModel | None:
        name = str(body.get("model") or body.get("name") or "")
        model = self._find(name)
        if model is None:
            respond.send_json(404, {"error": f"model '{name}' not found"})
        return model

    # --- endpoints -------------------------------------------------------------------------
    def _tags(self, respond: Responder, _body: dict[str, Any]) -> None:
        respond.send_json(200, {"models": [_tag_entry(m) for m in self.models]})

    def _show(self, respond: Responder, body: dict[str, Any]) -> None:
        model = self._model_or_404(respond, body)
        if model is None:
            return
        arch = model.family
        shown: dict[str, Any] = {
            "modelfile": f"# Modelfile generated by \"ollama show\"\nFROM {model.name}\n",
            "parameters": 'temperature 0.6\nstop "<|end|>"',
            "template": "{{ .System }}{{ range .Messages }}{{ .Content }}{{ end }}",
            "details": _details(model),
            "model_info": {
                "general.architecture": arch,
                "general.parameter_count": 7_615_616_512,
                f"{arch}.context_length": model.context_length,
                f"{arch}.embedding_length": 3584,
            },
            "modified_at": "2025-10-01T12:00:00.000000000Z",
        }
        if self.list_capabilities:
            shown["capabilities"] = list(model.capabilities)
        respond.send_json(200, shown)

    def _embed(self, respond: Responder, body: dict[str, Any]) -> None:
        model = self._model_or_404(respond, body)
        if model is None:
            return
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        respond.send_json(
            200,
            {
                "model": body["model"],
                "embeddings": [hashed_embedding(t) for t in texts],
                "total_duration": 1_000_000,
                "load_duration": 100_000,
                "prompt_eval_count": sum(len(t.split()) for t in texts),
            },
        )

    def _chat(self, respond: Responder, body: dict[str, Any]) -> None:
        model = self._model_or_404(respond, body)
        if model is None:
            return
        requested = str(body["model"])
        if "completion" not in model.capabilities:
            respond.send_json(400, {"error": f'"{requested}" does not support chat'})
            return
        think = body.get("think")
        if think is True and "thinking" not in model.capabilities:
            respond.send_json(400, {"error": f'"{requested}" does not support thinking'})
            return
        # An old server inlines the tags whatever `think` says; a new one obeys think=false.
        can_think = "thinking" in model.capabilities
        reasoning, content = self.pieces(
            body, inline=can_think, field=can_think and body.get("think") is not False
        )
        time.sleep(self.first_token_delay)
        if self.redirect_to is not None:
            respond.redirect(307, self.redirect_to)
            return
        if self.raw_body is not None:
            respond.start_stream("application/x-ndjson", self.raw_status)
            try:
                for data in self.raw_body():
                    respond.write_chunk(data)
                respond.end_stream()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading, as it should
            return
        if self.raw_lines is not None:
            respond.start_stream("application/x-ndjson")
            for line in self.raw_lines:
                respond.write_chunk(line.encode() + b"\n")
            respond.end_stream()
            return
        lines = [_line(_chunk(requested, "thinking", t)) for t in reasoning]
        lines += [_line(_chunk(requested, "content", t)) for t in content]
        final = _chunk(requested, "content", "") | {"done": True}
        final |= _metrics(_prompt_words(body), len(lines))
        limit = body.get("options", {}).get("num_predict")
        if isinstance(limit, int) and 0 < limit < len(lines) and not self.ignore_num_predict:
            lines = lines[:limit]  # one chunk a token, as Ollama streams
            final |= {"done_reason": "length", "eval_count": limit}
        self.stream(
            respond, "application/x-ndjson", lines,
            error_line=_line({"error": self.error_message}), end_lines=[_line(final)],
        )


def _details(model: FakeModel) -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": model.family,
        "families": [model.family],
        "parameter_size": model.parameter_size,
        "quantization_level": "Q4_K_M",
    }


def _tag_entry(model: FakeModel) -> dict[str, Any]:
    digest = hashlib.sha256(model.name.encode()).hexdigest()
    return {
        "name": model.name,
        "model": model.name,
        "modified_at": "2025-10-01T12:00:00.000000000Z",
        "size": model.size,
        "digest": digest,
        "details": _details(model),
    }


def chat_models(names: str) -> tuple[FakeModel, ...]:
    """`"deepseek-r1,llama3.2"` as installed chat models (":latest" added to a bare name)."""
    return tuple(
        FakeModel(name if ":" in name else name + ":latest")
        for name in (part.strip() for part in names.split(",")) if name
    )


def _resolve(value: Reply, body: dict[str, Any]) -> str:
    return value(body) if callable(value) else value


def _prompt_words(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))


def _busy_text(status: int) -> str:
    if status == 503:
        return "server busy, please try again.  maximum pending requests exceeded"
    return "too many requests"


def _chunk(model: str, field: str, text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text if field == "content" else ""}
    if field == "thinking":
        message["thinking"] = text
    return {"model": model, "created_at": now_iso(), "message": message, "done": False}


def _metrics(prompt_words: int, eval_count: int) -> dict[str, Any]:
    return {
        "done_reason": "stop",
        "total_duration": 2_500_000_000,
        "load_duration": 500_000_000,
        "prompt_eval_count": prompt_words,
        "prompt_eval_duration": 200_000_000,
        "eval_count": eval_count,
        "eval_duration": 1_000_000_000,
    }


def _line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode() + b"\n"


def echo_last_user_message(body: dict[str, Any]) -> str:
    """A reply function: repeat the last user message (shows what the model was sent)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]["content"]) if users else ""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake Ollama until interrupted.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--reply", default="Resposta de teste.")
    parser.add_argument("--echo", action="store_true", help="reply with the last user message")
    parser.add_argument("--thinking", default="Vou procurar nos documentos.")
    parser.add_argument("--think-shape", choices=("field", "inline", "none"), default="field")
    parser.add_argument("--chunk-delay", type=float, default=0.0)
    parser.add_argument("--first-token-delay", type=float, default=0.0)
    parser.add_argument("--error-after", type=int, default=None)
    parser.add_argument("--drop-after", type=int, default=None)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--models", default=None,
                        help="the installed chat models, comma-separated (default: a few)")
    args = parser.parse_args(argv)
    fake = FakeOllama(
        reply=echo_last_user_message if args.echo else args.reply,
        thinking=args.thinking,
        think_shape=args.think_shape,
        chunk_delay=args.chunk_delay,
        first_token_delay=args.first_token_delay,
        error_after=args.error_after,
        drop_after=args.drop_after,
        fail_first=args.fail_first,
        models=DEFAULT_MODELS if args.models is None else chat_models(args.models),
        port=args.port,
    )
    serve_until_interrupted(fake)


def serve_until_interrupted(fake: FakeServer) -> None:
    """Print the URL on its own line (for the parent process to read), then serve."""
    with fake:
        print(fake.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()


def numbered_replies() -> Callable[[dict[str, Any]], str]:
    """A reply for `FakeOllama(reply=...)` that is new each time ("Resposta 1.", "Resposta
    2.", …), so a replayed answer or a request's history shows which turn it came from."""
    count = iter(range(1, 1_000_000))
    return lambda _body: f"Resposta {next(count)}."
