"""What a model server may send, bounded: a protocol line, an error body, a JSON reply.

A server is untrusted input. httpx's `iter_lines` and `read` hold whatever arrives until a
newline or the end of the body, so one 300 MB line without a newline, or a 300 MB error
page, took docai to over a gigabyte of memory. Every byte a backend reads goes through
here instead, each kind with its own ceiling, far above anything a working server sends:
- a line of a streamed reply (one NDJSON object or SSE event: a token or a few),
- the body of an error status (a JSON error or a short page: only its first 200 characters
  are ever quoted),
- a whole JSON reply (`/api/tags`, `/api/show`, a batch of embeddings),
- the answer itself, in tokens (`bounded_answer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from docai.llm.events import LENGTH, Done, Event, TextDelta, ThinkingDelta

MiB = 1 << 20
# One streamed chunk holds a token or a few, with its JSON wrapping: kilobytes at most.
MAX_LINE_BYTES = 1 * MiB
# Only the start of an error body is ever shown; the rest is not even read.
MAX_ERROR_BODY_BYTES = 64 * 1024
# A batch of 64 embeddings of 4,096 dimensions as JSON text is about 6 MB.
MAX_REPLY_BYTES = 64 * MiB


class OversizedReply(Exception):
    """More bytes than the ceiling for their kind arrived (`limit`, in bytes)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def bounded_lines(chunks: Iterable[bytes], limit: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of a byte stream as text (UTF-8, a bad byte replaced), without their line
    ends; `OversizedReply` as soon as one line grows past `limit` bytes, before the rest
    of it is read."""
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            line = bytes(pending[:end])
            del pending[: end + 1]
            if len(line) > limit:
                raise OversizedReply(limit)
            yield _text(line)
        if len(pending) > limit:
            raise OversizedReply(limit)
    if pending:
        yield _text(bytes(pending))


def bounded_body(chunks: Iterable[bytes], limit: int) -> bytes:
    """A whole body; `OversizedReply` as soon as it grows past `limit` bytes."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise OversizedReply(limit)
    return bytes(body)


def body_start(chunks: Iterable[bytes], limit: int = MAX_ERROR_BODY_BYTES) -> str:
    """The first `limit` bytes of a body as text; the rest is left unread."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) >= limit:
            break
    return _text(bytes(body[:limit]))


def _text(line: bytes) -> str:
    return line.rstrip(b"\r").decode("utf-8", errors="replace")


# Characters a token stands for, at most, in the text of a reply that runs on: a server that
# ignores the requested limit is cut off once its text could not fit in that many tokens.
CHARS_PER_TOKEN_CEILING = 8


def bounded_answer(events: Iterable[Event], max_tokens: int) -> Iterator[Event]:
    """`events` up to about `max_tokens` tokens of generated text (reasoning included).

    A server asked for at most `max_tokens` ends by itself, its `Done` saying "length".
    One that ignores the request (or loops without ever counting) is cut here once its
    text outgrows what that many tokens can hold, and a `Done` saying "length" is made
    for it, so every caller learns the same way that the answer was cut."""
    budget = max_tokens * CHARS_PER_TOKEN_CEILING
    produced = 0
    for event in events:
        if isinstance(event, TextDelta | ThinkingDelta):
            produced += len(event.text)
            if produced > budget:
                yield type(event)(event.text[: max(0, len(event.text) - (produced - budget))])
                yield Done(done_reason=LENGTH)
                return
        yield event
