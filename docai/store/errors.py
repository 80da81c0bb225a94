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


class StoreDamaged(StoreUnavailable):
    """The collection's rows contradict each other (a postings pack cut short, a row out of
    range): the admin reindexes it. Like an unreachable store, the REPL says so and stays
    open; the next question reads the store again."""
