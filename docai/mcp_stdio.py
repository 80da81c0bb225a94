"""The agent's requests on stdin, each made valid Unicode before the MCP SDK reads it.

JSON may escape a lone surrogate (`"\\ud800"`): valid JSON, but not Unicode, and the SDK's
parser rejects such a line without replying, so the agent waits for its own time-out. A
relay thread reads the real stdin line by line and hands the SDK, through a pipe, each
request with such strings replaced by U+FFFD (`byte_text.valid_values`), as docai treats
every other text that came from outside. Any other line passes unchanged, so the SDK
still answers malformed JSON its own way.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import threading
from typing import Any, BinaryIO

from docai.byte_text import valid_values

# An escaped code point from the surrogate range, in any case: the cheap test for the rare
# line worth decoding and encoding again.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def valid_request(line: bytes) -> bytes:
    """`line` (one JSON-RPC message and its newline) with lone surrogates replaced."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message: Any = json.loads(line)
    except ValueError:
        return line
    return json.dumps(valid_values(message)).encode() + b"\n"


def relay_stdin() -> None:
    """Make `sys.stdin` a pipe fed with `valid_request` of each line of the real stdin."""
    source = sys.stdin.buffer
    read_end, write_end = os.pipe()

    def relay(sink: BinaryIO) -> None:
        with sink:
            for line in source:
                sink.write(valid_request(line))
                sink.flush()

    sink = open(write_end, "wb", buffering=0)  # noqa: SIM115 (closed by the relay thread)
    threading.Thread(target=relay, args=(sink,), name="docai-mcp-stdin", daemon=True).start()
    sys.stdin = io.TextIOWrapper(open(read_end, "rb"), encoding="utf-8")  # noqa: SIM115
