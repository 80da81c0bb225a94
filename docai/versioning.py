"""The versions cached data keys on: a hand-bumped number plus a hash of the code behind it.

Why a hash besides the number: an edit to the parsing or analysis code that nobody
remembered to bump for (or an experiment reverted after reusing a number) would otherwise
leave chunks or terms made by other code in every cache, and searches would silently miss.
Hashing the code itself (and the versions of the libraries it leans on) makes any such
edit rebuild the caches, at the price of a rebuild after edits that change nothing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Iterable
from pathlib import Path


def code_version(number: str, files: Iterable[str | Path], packages: Iterable[str] = ()) -> str:
    """`number`, then a short hash of the contents of `files` and the installed versions
    of `packages` (an unreadable file or a missing package counts as empty)."""
    return f"{number}-{content_hash([*map(_read, files), *map(_installed, packages)])}"


def content_hash(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:12]


def _read(file: str | Path) -> bytes:
    try:
        return Path(file).read_bytes()
    except OSError:
        return b""


def _installed(package: str) -> bytes:
    try:
        return importlib.metadata.version(package).encode()
    except importlib.metadata.PackageNotFoundError:
        return b""
