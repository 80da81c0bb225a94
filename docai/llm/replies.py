"""Reading what a server replied: its error texts, why a connection dropped, and the fields
of a JSON object taken only when they have the type the protocol promises.

A server is untrusted: a field of the wrong type is ignored, never a crash, and a number
no server could report is shown as unknown rather than as given.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from docai import messages


def response_text(body: str, reason_phrase: str, detail: str | None) -> str:
    """What to quote from an error response, on one line: its JSON error text, else its
    body unless it is markup (a web page says nothing a terminal line can show), else the
    status phrase."""
    shown = " ".join(body.split())
    if shown.startswith("<"):
        shown = ""
    return (detail or shown)[:200] or reason_phrase


def error_detail(body: str) -> str | None:
    """The server's own error text from a JSON error body, or None if the body is not one.

    Ollama sends `{"error": "..."}`; OpenAI-compatible servers `{"error": {"message": ...}}`.
    """
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or "error" not in data:
        return None
    return error_text(data["error"])


def drop_reason(error: httpx.RequestError) -> str:
    """Why a connection failed, in the user's language (httpx's own text is English and
    names its internals: "peer closed connection without sending complete message body")."""
    if isinstance(error, httpx.RemoteProtocolError):
        return messages.LLM_REASON_CLOSED
    if isinstance(error, httpx.ReadError):
        return messages.LLM_REASON_READ
    if isinstance(error, httpx.WriteError):
        return messages.LLM_REASON_WRITE
    if isinstance(error, httpx.DecodingError):
        return messages.LLM_REASON_DECODING
    return messages.LLM_REASON_NETWORK


def error_text(error: object) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def object_field(data: dict[str, Any], key: str) -> dict[str, Any]:
    """`data[key]` when it is a JSON object, else {}: a server that sends junk in a field
    gets that field ignored, never a crash."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def text_field(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


# No server reports more tokens than this, nor a duration longer (in nanoseconds: 11 days):
# a larger or a negative figure is junk, shown as unknown rather than as given.
MAX_COUNT = 10**15


def count_field(data: dict[str, Any], key: str) -> int | None:
    """A token count or a duration: a whole number from 0 to `MAX_COUNT`, else None."""
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return value if 0 <= value <= MAX_COUNT else None
