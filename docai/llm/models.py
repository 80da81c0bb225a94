"""What an Ollama server says about its models (`/api/tags`, `/api/show`), as records.

Ollama names a model `name:tag`; a name without a tag means `name:latest`, so `deepseek-r1`
and `deepseek-r1:latest` are the same model. `same_model` and `short_name` are the one
place that rule lives.
"""

from __future__ import annotations

from dataclasses import dataclass

LATEST = ":latest"
# Longer than any registry path and tag a model is pulled by.
MAX_NAME_LENGTH = 256


@dataclass(frozen=True, slots=True)
class InstalledModel:
    """One entry of `/api/tags`."""

    name: str  # as the server lists it, e.g. "deepseek-r1:latest"
    size: int | None = None  # bytes on disk
    family: str | None = None
    parameter_size: str | None = None  # e.g. "7.6B"


@dataclass(frozen=True, slots=True)
class ModelDetails:
    """What `/api/show` says of one model. `capabilities` is None when the server is too old
    to list them (before Ollama 0.6.4): then nothing can be concluded from it."""

    name: str
    capabilities: frozenset[str] | None
    context_length: int | None = None

    @property
    def can_chat(self) -> bool | None:
        return None if self.capabilities is None else "completion" in self.capabilities

    @property
    def can_think(self) -> bool | None:
        return None if self.capabilities is None else "thinking" in self.capabilities


def listed_name(name: str) -> bool:
    """Whether a name a server lists can be a model's: printable, no spaces, not too long.

    The list is shown to the user (start-up note, `/modelo`'s refusal, Tab completion), so
    a name holding an escape sequence would write to the terminal itself; no model anyone
    can pull is named that way, so such an entry is dropped where the list is read."""
    return 0 < len(name) <= MAX_NAME_LENGTH and name.isprintable() and " " not in name


def printable_detail(text: str) -> str | None:
    """A descriptive field of a listed model (family, size) when it is one printable line."""
    return text if text and len(text) <= MAX_NAME_LENGTH and text.isprintable() else None


def short_name(name: str) -> str:
    """The name a user types: `deepseek-r1` for `deepseek-r1:latest`."""
    return name.removesuffix(LATEST)


def same_model(a: str, b: str) -> bool:
    return _full_name(a) == _full_name(b)


def find_installed(wanted: str, installed: tuple[InstalledModel, ...]) -> InstalledModel | None:
    return next((model for model in installed if same_model(model.name, wanted)), None)


def _full_name(name: str) -> str:
    name = name.strip()
    # A registry path may hold a colon only in its tag: `host:port/ns/model` keeps ':latest'.
    return name if ":" in name.rsplit("/", 1)[-1] else name + LATEST
