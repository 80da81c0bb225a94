"""A client's one connection to the store: opened on first use, reopened after a failure,
read only, each question's statements outside a transaction or in one snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from docai.store import vector_queries
from docai.store.connection import connect, lost_error


class ClientConnection:
    """The connection a `StoreIndex` reads through (`reading`, `statements`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextmanager
    def reading(self) -> Iterator[psycopg.Connection[Any]]:
        """A READ ONLY, REPEATABLE READ transaction: one snapshot of the collection. A
        failure closes the connection (the next call opens another) and raises a StoreError."""
        with self.statements() as conn, conn.transaction():
            yield conn

    @contextmanager
    def statements(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection, each statement its own transaction (autocommit) unless the caller
        opens one; errors as `reading`'s."""
        if self._conn is None or self._conn.closed:
            self._conn = connect(self.url, autocommit=True)
            self._conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            self._conn.read_only = True
            try:
                vector_queries.connection_settings(self._conn)
            except psycopg.Error as error:
                self.close()
                raise lost_error(self.url, error) from None
        try:
            yield self._conn
        except psycopg.Error as error:
            self.close()
            raise lost_error(self.url, error) from None
