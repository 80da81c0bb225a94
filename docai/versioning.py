"""The versions cached data keys on: a hand-bumped number plus a hash of the code behind it.

Why a hash besides the number: an edit to the parsing or analysis code that nobody
remembered to bump for (or an experiment reverted after reusing a number) would otherwise
leave chunks or terms made by other code in every cache, and searches would silently miss.
Hashing the code itself, the data files it reads and the versions of the libraries it
leans on makes any such edit rebuild the caches, at the price of a rebuild after edits
that change nothing.

Why module objects rather than paths: a module that is moved or renamed then fails to
import where its version is computed, instead of silently dropping out of the hash; and a
package stands for every module in it, so a new module is covered without being listed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Iterable, Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from types import ModuleType


def code_version(
    number: str,
    modules: Iterable[ModuleType],
    data: Iterable[Traversable] = (),
    packages: Iterable[str] = (),
) -> str:
    """`number`, then a short hash of the source of `modules` (a package: of every module
    under it), of the `data` files and of the installed versions of the distribution
    `packages` (a missing one counts as empty)."""
    parts = [
        *(part for module in modules for part in _sources(module)),
        *(part for file in data for part in (file.name.encode(), file.read_bytes())),
        *map(_installed, packages),
    ]
    return f"{number}-{_content_hash(parts)}"


def _content_hash(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:12]


def _sources(module: ModuleType) -> Iterator[bytes]:
    """The module's name and source; for a package, those of every module under it."""
    if module.__file__ is None:
        raise ValueError(f"{module.__name__} has no source file to hash")
    source = Path(module.__file__)
    files = sorted(source.parent.rglob("*.py")) if hasattr(module, "__path__") else [source]
    for file in files:
        yield f"{module.__name__}:{file.relative_to(source.parent).as_posix()}".encode()
        yield file.read_bytes()


def _installed(package: str) -> bytes:
    try:
        return importlib.metadata.version(package).encode()
    except importlib.metadata.PackageNotFoundError:
        return b""
