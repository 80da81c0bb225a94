"""Client for Ollama's native HTTP API (`/api/chat`, `/api/embed`, `/api/tags`, `/api/show`).

The protocol facts this follows (NDJSON streaming, `message.thinking`, errors inside a 200
stream, 404 for a model that was not pulled) are summarised in the project's notes on the
Ollama API. Every request sets `options.num_ctx` explicitly: the server's default varies by
version and GPU, and a prompt longer than it is silently truncated from the front.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx

from docai import messages
from docai.llm.errors import (
    ChatUnsupported,
    LLMError,
    MalformedResponse,
    ThinkingUnsupported,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.http import (
    CONNECT_TIMEOUT,
    DEFAULT_RETRY,
    HTTPBackend,
)
from docai.llm.models import InstalledModel, ModelDetails, listed_name, printable_detail
from docai.llm.replies import count_field, object_field, text_field
from docai.settings import DEFAULT_READ_TIMEOUT


def is_chat_chunk(chunk: dict[str, Any]) -> bool:
    """Whether an object has the shape of an `/api/chat` chunk: a `message` object, or the
    final `done: true`. (An `error` object is raised before this is asked.)"""
    return isinstance(chunk.get("message"), dict) or chunk.get("done") is True


def events_from_chunk(chunk: dict[str, Any], *, stream_error: Callable[[object], LLMError]
                      ) -> Iterator[Event]:
    """The events one NDJSON object holds, in order: reasoning, answer text, then Done.

    The final `done: true` object may itself carry text, so it is read like any other.
    Fields of the wrong type are ignored rather than trusted.
    """
    if "error" in chunk:
        raise stream_error(chunk["error"])
    message = object_field(chunk, "message")
    if thinking := text_field(message, "thinking"):
        yield ThinkingDelta(thinking)
    if content := text_field(message, "content"):
        yield TextDelta(content)
    if chunk.get("done") is True:
        yield Done(
            done_reason=text_field(chunk, "done_reason") or None,
            prompt_eval_count=count_field(chunk, "prompt_eval_count"),
            eval_count=count_field(chunk, "eval_count"),
            eval_duration_ns=count_field(chunk, "eval_duration"),
            total_duration_ns=count_field(chunk, "total_duration"),
        )


class OllamaClient(HTTPBackend):
    """A ChatBackend for Ollama, plus the embeddings call dense retrieval uses."""

    name = "ollama"
    chat_path = "/api/chat"
    unreachable_template = messages.LLM_OLLAMA_UNREACHABLE
    no_endpoint_template = messages.LLM_NOT_OLLAMA
    model_not_found_template = messages.LLM_OLLAMA_MODEL_NOT_FOUND
    protocol = messages.LLM_PROTOCOL_OLLAMA
    server_kind = messages.LLM_SERVER_OLLAMA
    url_option = messages.LLM_OPTION_OLLAMA

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        retries: int = DEFAULT_RETRY.retries,
        backoff: float = DEFAULT_RETRY.backoff,
        embed_batch_size: int = 64,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(
            base_url.rstrip("/"),
            model,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            retries=retries,
            backoff=backoff,
            transport=transport,
        )
        self._embed_batch_size = embed_batch_size

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
                    messages.LLM_MALFORMED.format(url=self.shown_url, line=str(data)[:120])
                )
            vectors.extend([float(x) for x in vector] for vector in embeddings)
        return vectors

    def list_models(self) -> tuple[InstalledModel, ...]:
        """The models pulled on the server (`GET /api/tags`), as it lists them."""
        data = self._request_json("GET", "/api/tags", model=self.model)
        entries = data.get("models")
        if not isinstance(entries, list):
            raise self._wrong_protocol(messages.LLM_PROBLEM_NO_MODELS, str(data))
        installed = []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            name = text_field(entry, "name") or text_field(entry, "model")
            if not listed_name(name):
                continue
            details = object_field(entry, "details")
            installed.append(InstalledModel(
                name=name,
                size=count_field(entry, "size"),
                family=printable_detail(text_field(details, "family")),
                parameter_size=printable_detail(text_field(details, "parameter_size")),
            ))
        return tuple(installed)

    def show(self, model: str) -> ModelDetails:
        """What the server knows of `model` (`POST /api/show`); `ModelNotFound` when it was
        not pulled."""
        data = self._request_json("POST", "/api/show", body={"model": model}, model=model)
        raw = data.get("capabilities")
        capabilities = (
            frozenset(c for c in raw if isinstance(c, str)) if isinstance(raw, list) else None
        )
        info = object_field(data, "model_info")
        architecture = info.get("general.architecture")
        length = count_field(info, f"{architecture}.context_length") if architecture else None
        return ModelDetails(model, capabilities, length)

    # --- internals ---------------------------------------------------------------------
    def _chat_body(
        self, messages: Sequence[Message], *, think: bool | None, num_ctx: int,
        temperature: float, max_tokens: int | None,
    ) -> dict[str, Any]:
        """The `/api/chat` request. `think` is omitted when None so the server decides;
        `num_predict` bounds the reply, reasoning included."""
        options: dict[str, Any] = {"num_ctx": num_ctx, "temperature": temperature}
        if max_tokens is not None:
            options["num_predict"] = max_tokens
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "options": options,
        }
        if think is not None:
            body["think"] = think
        return body

    def _read_stream(self, lines: Iterator[str]) -> Iterator[Event]:
        """NDJSON: one object per line, up to the one with `done: true`.

        A field of the wrong type in one chunk is ignored, but a reply in which no chunk at
        all has the protocol's shape comes from another kind of server."""
        yielded = False
        first: str | None = None
        recognised = False
        for line in lines:
            if not line.strip():
                continue
            chunk = self._json_object(line)
            first = first or line
            recognised = recognised or "error" in chunk or is_chat_chunk(chunk)
            for event in events_from_chunk(chunk, stream_error=self._stream_error):
                yielded = True
                yield event
                if isinstance(event, Done):
                    return
        if first is not None and not recognised:
            raise self._wrong_protocol(messages.LLM_PROBLEM_NO_END, first)
        raise self._interrupted(messages.LLM_ENDED_EARLY, partial=yielded)

    def _specific_error(
        self, status: int, detail: str | None, shown: str, model: str
    ) -> LLMError | None:
        if status == 400 and detail and "does not support thinking" in detail:
            return ThinkingUnsupported(
                messages.LLM_THINKING_UNSUPPORTED.format(model=model), model=model
            )
        if status == 400 and detail and "does not support chat" in detail:
            return ChatUnsupported(messages.LLM_CHAT_UNSUPPORTED.format(model=model))
        return None


def _is_vector(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    )
