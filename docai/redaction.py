"""A URL fit to show: the one place that decides what of a server address may be echoed.

Every message, listing and error line that names a server goes through `redact_url`
(`docai config`, a bad `OLLAMA_HOST` or config `server`, the model server's errors); the
request itself keeps the password (httpx sends a URL's user and password as Basic
authorisation).
"""

from __future__ import annotations


def redact_url(url: str) -> str:
    """`url` fit to show: a password in it (`http://user:secret@host`) becomes `***`.

    The user part ends at the last `@`, as in a URL whose password holds an unescaped `@` or `/`
    (which a parser would misread): showing too little of a URL beats showing a secret.
    """
    start = url.find("://")
    start = start + 3 if start >= 0 else 0
    at = url.rfind("@")
    if at < start:
        return url
    user, colon, _password = url[start:at].partition(":")
    if not colon:
        return url
    return f"{url[:start]}{user}:***{url[at:]}"
