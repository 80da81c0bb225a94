"""What can go wrong with the shared store, as `DocaiError`s: one pt-BR line each."""

from __future__ import annotations

from docai.errors import DocaiError


class StoreError(DocaiError):
    """The store cannot be used as asked (bad address, missing schema or collection, ...)."""


class StoreUnavailable(StoreError):
    """The server cannot be reached, or the connection dropped: worth trying again later.
    The REPL reports it and carries on; the next question reconnects."""


class StoreReadOnly(StoreError):
    """The role may only read: indexing needs the indexer role."""
