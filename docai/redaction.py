"""Connection strings fit to show: a password in a URL or a libpq keyword string hidden."""

from __future__ import annotations

import re

# `password=...` in a libpq keyword string: a quoted value (with \' and \\ escapes) or a word.
_KEYWORD_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
# `?password=...` or `&password=...` in a URL's query.
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def redact_url(url: str) -> str:
    """`url` with any password replaced by `***`: `scheme://user:secret@host` (the user part
    ends at the last `@`, so a password holding an unescaped `@` or `/` is hidden whole), a
    `password=` query parameter, or a `password=` keyword of a libpq connection string."""
    start = url.find("://")
    if start < 0:  # a libpq keyword string, or `user:secret@host:port` with no scheme
        shown, start = _KEYWORD_PASSWORD.sub(r"\1***", url), 0
    else:
        shown, start = _QUERY_PASSWORD.sub(r"\1***", url), start + 3
    at = shown.rfind("@")
    if at < start:
        return shown
    user, colon, _password = shown[start:at].partition(":")
    if not colon:
        return shown
    return f"{shown[:start]}{user}:***{shown[at:]}"
