"""Text that came from bytes: how docai carries it, and the two ways it leaves.

A file name that is not UTF-8, or a question typed or piped with a stray byte, reaches
Python with each undecodable byte as a lone surrogate (`surrogateescape`: byte B becomes
U+DC00+B). docai carries such text as it came, everywhere inside the process: it is
lossless, so a file is still opened by its real name and two names that differ by one byte
stay two. But a lone surrogate is not Unicode, and strict UTF-8 refuses it: every place
text becomes bytes or leaves docai goes through one of the two functions here, chosen by
what the bytes are for.

- `key_bytes`: hashes, fingerprints, cache keys, and patterns matched against text stored
  as bytes (the chunk table stores it so). Lossless (`surrogatepass`), so keys never
  collide, and any valid text hashes exactly as plain UTF-8 (old keys stay valid).
- `valid_text` (and `valid_values` for JSON-shaped data): text that leaves as text, for a
  reader that expects Unicode (JSON on stdout, a request to a model server). Each lone
  surrogate becomes U+FFFD, the replacement character every decoder uses. The terminal
  has its own rules (`cli/terminal_text.py`, `loading.display_name`: a byte shown as `\\xff`).
"""

from __future__ import annotations

import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def key_bytes(text: str) -> bytes:
    """`text` as UTF-8 for a hash or a key, lone surrogates kept (never an error)."""
    return text.encode("utf-8", "surrogatepass")


def valid_text(text: str) -> str:
    """`text` as valid Unicode: each lone surrogate replaced by U+FFFD."""
    if text.isascii():  # the usual case, and a fast one
        return text
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def valid_values(value: Any) -> Any:
    """`value` (JSON-shaped: dicts, lists, strings, numbers) with every string, key
    included, made `valid_text`."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_values(key): valid_values(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [valid_values(item) for item in value]
    return value
