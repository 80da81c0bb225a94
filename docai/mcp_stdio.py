"""The agent's requests on stdin, each made valid Unicode before the MCP SDK reads it.

JSON may escape a lone surrogate (`"\\ud800"`): valid JSON, but not Unicode, and the SDK's
parser rejects such a line without replying, so the agent waits for its own time-out. A
relay thread reads the real stdin line by line and hands the SDK, through a pipe, each
request with such strings replaced by U+FFFD (`byte_text.valid_values`), as docai treats
every other text that came from outside. Any other line passes unchanged, so the SDK
still answers malformed JSON its own way.

A line is read at most MAX_REQUEST_BYTES at a time: a request longer than that (no
question docai takes comes near it) is skipped to its end without being held, and the SDK
is handed in its place a request for a method nobody has, named by what happened, so the
agent gets an error reply with the request's id and the server's memory stays bounded
(an unbounded line of 200 MB once cost 1.2 GB).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

from docai import messages
from docai.byte_text import valid_values
from docai.question_limit import MAX_QUESTION_CHARS

# An escaped code point from the surrogate range, in any case: the cheap test for the rare
# line worth decoding and encoding again.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# The longest question, every character escaped (`\uXXXX`, 6 bytes), and room to spare.
MAX_REQUEST_BYTES = max(4 << 20, 8 * 6 * MAX_QUESTION_CHARS)
# Where an over-long request's id is looked for: JSON-RPC writers put it near the start.
_ID_WINDOW = 4096
_REQUEST_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\\n]|\\.){0,200}")')


def valid_request(line: bytes) -> bytes:
    """`line` (one JSON-RPC message and its newline) with lone surrogates replaced."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message: Any = json.loads(line)
    except ValueError:
        return line
    return json.dumps(valid_values(message)).encode() + b"\n"


def too_large(start: bytes, size: int) -> bytes | None:
    """What the SDK reads instead of a request of `size` bytes beginning with `start`: a
    call of a method named by the refusal, with the request's id, so the SDK's "method not
    found" reply carries both; None for a request without an id (nobody waits for it)."""
    found = _REQUEST_ID.search(start[:_ID_WINDOW])
    if found is None:
        return None
    try:
        request_id = json.loads(found.group(1))
    except ValueError:
        return None
    method = messages.MCP_REQUEST_TOO_LARGE.format(size=size / 2**20,
                                                    limit=MAX_REQUEST_BYTES / 2**20)
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method}).encode() + b"\n"


def bounded_requests(source: BinaryIO) -> Iterator[bytes]:
    """Each line of `source`, an over-long one replaced by `too_large`'s request (or
    dropped), reading at most MAX_REQUEST_BYTES at a time."""
    while line := source.readline(MAX_REQUEST_BYTES + 1):
        if len(line) <= MAX_REQUEST_BYTES or line.endswith(b"\n"):
            yield line
            continue
        size = len(line)
        while rest := source.readline(MAX_REQUEST_BYTES):
            size += len(rest)
            if rest.endswith(b"\n"):
                break
        replaced = too_large(line, size)
        if replaced is not None:
            yield replaced


def relay_stdin() -> None:
    """Make `sys.stdin` a pipe fed with `valid_request` of each line of the real stdin."""
    source = sys.stdin.buffer
    read_end, write_end = os.pipe()

    def relay(sink: BinaryIO) -> None:
        with sink:
            for line in bounded_requests(source):
                sink.write(valid_request(line))
                sink.flush()

    sink = open(write_end, "wb", buffering=0)  # noqa: SIM115 (closed by the relay thread)
    threading.Thread(target=relay, args=(sink,), name="docai-mcp-stdin", daemon=True).start()
    sys.stdin = io.TextIOWrapper(open(read_end, "rb"), encoding="utf-8")  # noqa: SIM115
