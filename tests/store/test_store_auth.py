"""A server that asks for what the address did not give: a password (scram, no `.pgpass`
entry) or TLS the server does not offer. Each is named, with how to give it, never taken
for a server that is down. A real PostgreSQL, reached over TCP through a relay on
127.0.0.1 (so libpq asks for TLS as it does over a network)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from bench.store_proxy import DelayProxy, socket_of
from docai.store.connection import translated
from docai.store.errors import StoreError
from tests.store.test_store_cli import run

ROLE = "docai_scram_user"


def database(url: str) -> str:
    return url.partition("?")[0].rsplit("/", 1)[1]


def asks_for_a_password(store_url: str) -> None:
    """`ROLE` logs in with scram-sha-256 only (a first `pg_hba.conf` line for it)."""
    with psycopg.connect(store_url, autocommit=True) as conn:
        (hba,) = conn.execute("SHOW hba_file").fetchone() or ("",)
        conn.execute(f"DROP ROLE IF EXISTS {ROLE}")
        conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD 'S3gredo-Forte'")
        conn.execute(f"GRANT pg_read_all_data TO {ROLE}")
        rules = Path(hba).read_text(encoding="utf-8")
        line = f"local all {ROLE} scram-sha-256\n"
        if line not in rules:
            Path(hba).write_text(line + rules, encoding="utf-8")
        conn.execute("SELECT pg_reload_conf()")


def test_no_password_is_named_with_where_to_put_it(home: Path, store_url: str) -> None:
    asks_for_a_password(store_url)
    (home / "pgpass").write_text("", encoding="utf-8")
    (home / "pgpass").chmod(0o600)
    with DelayProxy(socket_of(store_url)) as proxy:
        url = f"postgresql://{ROLE}@127.0.0.1:{proxy.port}/{database(store_url)}"
        done = run(home, "search", "x", "--dense", "off", "--store", url, cwd=home / "empty",
                   env={"PGPASSFILE": str(home / "pgpass"), "PGPASSWORD": ""})
    assert done.returncode == 2
    assert "senha" in done.stderr and ".pgpass" in done.stderr, done.stderr
    assert "não responde" not in done.stderr and "está no ar" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_tls_required_of_a_server_without_it_is_named(home: Path, store_url: str) -> None:
    with DelayProxy(socket_of(store_url)) as proxy:
        url = (f"postgresql://postgres@127.0.0.1:{proxy.port}/{database(store_url)}"
               "?sslmode=require")
        done = run(home, "search", "x", "--dense", "off", "--store", url, cwd=home / "empty")
    assert done.returncode == 2
    assert "TLS" in done.stderr and "sslmode" in done.stderr, done.stderr
    assert "não responde" not in done.stderr and "está no ar" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_statement_the_server_refuses_is_not_a_failure_to_connect(store_url: str) -> None:
    """A foreign key the server enforces (what two indexers racing used to hit) is named as
    a refused operation, never as a server docai could not connect to."""
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE parent_rows (id integer PRIMARY KEY)")
        conn.execute("CREATE TABLE child_rows (parent integer REFERENCES parent_rows)")
        with pytest.raises(StoreError) as caught, translated(store_url):
            conn.execute("INSERT INTO child_rows VALUES (1)")
    said = str(caught.value)
    assert "foreign key" in said and "recusou" in said, said
    assert "conectar" not in said, said
