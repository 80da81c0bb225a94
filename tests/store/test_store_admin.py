"""A team admin's store: nothing left behind by a killed indexer or a dropped collection,
`docai store list|drop`, a default collection, a second embedding model stored too. The
real `docai` process against a real PostgreSQL + pgvector."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg

from tests.store.test_store_cli import run
from tests.store.test_store_untrusted import make_docs
from tests.support.fake_embeddings import EmbeddingOllama

# Every table whose rows belong to one generation.
GENERATION_TABLES = ("docai_files", "docai_chunks", "docai_postings", "docai_packs",
                     "docai_term_stats", "docai_windows")


def index(home: Path, url: str, docs: Path, collection: str = "c2", *extra: str) -> str:
    done = run(home, "index", "--docs", str(docs), "--store", url, "--collection", collection,
               "--dense", "off", *extra)
    assert done.returncode == 0, done.stderr
    return done.stderr


def rows_by_generation(url: str) -> dict[str, set[int]]:
    """Each table's generations (the generations table included)."""
    with psycopg.connect(url) as conn:
        found = {table: {int(row[0]) for row in conn.execute(
            f"SELECT DISTINCT generation_id FROM {table}")} for table in GENERATION_TABLES}
        found["docai_generations"] = {int(row[0]) for row in conn.execute(
            "SELECT id FROM docai_generations")}
    return found


def only(found: dict[str, set[int]], generation: int) -> bool:
    """Whether every row of every table belongs to `generation` (windows: none, words only)."""
    return all(generations <= {generation} for generations in found.values()) and all(
        found[table] for table in found if table != "docai_windows")


def test_a_generation_left_by_a_killed_indexer_is_collected_by_the_next_run(
    home: Path, store_url: str
) -> None:
    """kill -9 between the switch to a new generation and the old one's drop leaves the old
    one neither current nor being built: the next run drops it, whatever its options."""
    docs = make_docs(home / "cdocs")
    assert "reconstruído" not in index(home, store_url, docs)  # a first index is not a rebuild
    with psycopg.connect(store_url, autocommit=True) as conn:
        (old,) = conn.execute("SELECT current_generation FROM docai_collections").fetchone()
        # what the killed run left: a new generation current, the old one still there
        conn.execute("UPDATE docai_collections SET current_generation = NULL")
    said = index(home, store_url, docs)
    assert "1 versão(ões) antiga(s) da coleção 'c2'" in said
    with psycopg.connect(store_url, autocommit=True) as conn:
        (new,) = conn.execute("SELECT current_generation FROM docai_collections").fetchone()
    assert new != old
    assert only(rows_by_generation(store_url), new)


def test_deleting_a_collection_row_takes_every_row_of_it(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs, "c2")
    index(home, store_url, docs, "c3")
    with psycopg.connect(store_url, autocommit=True) as conn:
        (kept,) = conn.execute("SELECT current_generation FROM docai_collections "
                               "WHERE name = 'c3'").fetchone()
        conn.execute("DELETE FROM docai_collections WHERE name = 'c2'")
    assert only(rows_by_generation(store_url), kept)


def test_an_older_schema_is_upgraded_and_its_leaked_rows_removed(
    home: Path, store_url: str
) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs, "c2")
    with psycopg.connect(store_url, autocommit=True) as conn:  # as a docai of schema 3 left it
        for table in ("docai_postings", "docai_packs", "docai_term_stats"):
            (constraint,) = conn.execute(
                "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND "
                "contype = 'f'", (table,)).fetchone()
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {constraint}")
        conn.execute("ALTER TABLE docai_generations DROP COLUMN updated")
        conn.execute("DELETE FROM docai_schema")
        conn.execute("INSERT INTO docai_schema (version) VALUES (3)")
        conn.execute("DELETE FROM docai_chunks")
        conn.execute("DELETE FROM docai_files")
        conn.execute("DELETE FROM docai_generations")  # the leak: postings, packs, stats stay
    index(home, store_url, docs, "c2")
    found = rows_by_generation(store_url)
    assert len(found["docai_generations"]) == 1
    assert only(found, next(iter(found["docai_generations"])))


def test_store_list_and_drop(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs, "c2")
    index(home, store_url, docs, "c3")
    listed = run(home, "store", "list", "--json", "--store", store_url, cwd=home / "empty")
    assert listed.returncode == 0, listed.stderr
    collections = {c["name"]: c for c in json.loads(listed.stdout)["collections"]}
    assert sorted(collections) == ["c2", "c3"]
    assert collections["c2"]["files"] == 2 and collections["c2"]["chunks"] == 2
    assert collections["c2"]["size_bytes"] > 0 and collections["c2"]["updated"]
    human = run(home, "store", "list", "--store", store_url, cwd=home / "empty")
    assert "c2: 2 arquivos, 2 trechos" in human.stdout, human.stdout
    # not on a terminal and without --yes: nothing is dropped
    refused = run(home, "store", "drop", "c2", "--store", store_url, cwd=home / "empty")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    dropped = run(home, "store", "drop", "c2", "--yes", "--store", store_url,
                  cwd=home / "empty")
    assert dropped.returncode == 0, dropped.stderr
    assert "'c2' apagada" in dropped.stdout
    missing = run(home, "store", "drop", "c2", "--yes", "--store", store_url,
                  cwd=home / "empty")
    assert missing.returncode == 2 and "não existe" in missing.stderr
    with psycopg.connect(store_url) as conn:
        (kept,) = conn.execute("SELECT current_generation FROM docai_collections").fetchone()
    assert only(rows_by_generation(store_url), kept)


def test_the_default_collection_comes_from_the_environment_or_the_config(
    home: Path, store_url: str
) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs, "equipe")
    by_env = run(home, "search", "--store", store_url, "--dense", "off", "zebrafoo",
                 cwd=home / "empty", env={"DOCAI_COLLECTION": "equipe"})
    assert by_env.returncode == 0, by_env.stderr
    assert "zebra.md" in by_env.stdout
    config = home / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('collection = "equipe"\n', encoding="utf-8")
    by_file = run(home, "search", "--store", store_url, "--dense", "off", "zebrafoo",
                  cwd=home / "empty")
    assert by_file.returncode == 0, by_file.stderr
    assert "zebra.md" in by_file.stdout


def test_a_second_embedding_model_is_stored_too(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    shared = ("--docs", str(docs), "--store", store_url, "--collection", "c2", "--dense", "on")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        for model in ("all-minilm", "nomic-embed-text"):
            done = run(home, "index", "--embed", "--embed-model", model, *shared, env=env)
            assert done.returncode == 0, done.stderr
            # not on a terminal (a CI log): a line a batch instead of a bar
            assert "Calculando embeddings: 2/2 trechos (100%)" in done.stderr, done.stderr
        before = len(server.embedded_texts())
        client = run(home, "search", "--embed-model", "nomic-embed-text", "--store", store_url,
                     "--collection", "c2", "zebrafoo", cwd=home / "empty", env=env)
        assert client.returncode == 0, client.stderr
        assert [t for t in server.embedded_texts()[before:] if "zebrafoo" not in t] == []
    with psycopg.connect(store_url) as conn:
        stored = dict(conn.execute(
            "SELECT e.name, count(v.key) FROM docai_embedders e LEFT JOIN docai_vectors v "
            "ON v.embedder_id = e.id GROUP BY e.name").fetchall())
        (windows,) = conn.execute("SELECT count(DISTINCT key) FROM docai_windows").fetchone()
    assert len(stored) == 2 and set(stored.values()) == {windows}, stored


def test_a_server_that_only_reads_is_told_apart_from_a_role_that_only_reads(
    home: Path, store_url: str
) -> None:
    """A hot standby refuses writes with "cannot execute ... in a read-only transaction",
    as a server with default_transaction_read_only does; a read-only role with "permission
    denied". The fix differs: the primary, or the indexer's role."""
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    name = store_url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    refused = run(home, "index", "--docs", str(docs), "--store", store_url, "--collection",
                  "c2", "--dense", "off", "--rebuild")
    assert refused.returncode == 2
    assert "só aceita leituras" in refused.stderr and "primário" in refused.stderr
    assert "papel de indexador" not in refused.stderr


def test_a_bad_port_is_an_address_error(home: Path, store_url: str) -> None:
    for port in ("99999", "abc"):
        url = f"postgresql://postgres@127.0.0.1:{port}/x"
        done = run(home, "search", "--store", url, "--dense", "off", "zebrafoo",
                   cwd=home / "empty")
        assert done.returncode == 2, done.stderr
        assert "tem um erro" in done.stderr and "está no ar" not in done.stderr, done.stderr


def test_a_password_others_can_read_is_pointed_out(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    base, _, query = store_url.partition("?")
    with_password = base.replace("postgres:@", "postgres:segredo123@", 1) + "?" + query
    done = run(home, "index", "--docs", str(docs), "--store", with_password, "--collection",
               "c2", "--dense", "off")
    assert done.returncode == 0, done.stderr
    assert "senha do PostgreSQL está na linha de comando" in done.stderr
    assert "~/.pgpass" in done.stderr and "segredo123" not in done.stderr
    config = home / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'store = "{with_password}"\n', encoding="utf-8")
    config.chmod(0o644)
    shared = run(home, "search", "--dense", "off", "--collection", "c2", "zebrafoo",
                 cwd=home / "empty")
    assert shared.returncode == 0, shared.stderr
    assert f"senha do PostgreSQL está em {config}" in shared.stderr
    assert "linha de comando" not in shared.stderr
    config.chmod(0o600)
    private = run(home, "search", "--dense", "off", "--collection", "c2", "zebrafoo",
                  cwd=home / "empty")
    assert private.returncode == 0 and "senha" not in private.stderr, private.stderr


def test_status_of_a_shared_collection(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs, "c2")
    shown = run(home, "status", "--store", store_url, "--collection", "c2", cwd=home / "empty")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("  c2: 2 arquivos, 2 trechos; embeddings: nenhum")
    data = run(home, "status", "--json", "--store", store_url, "--collection", "c2",
               cwd=home / "empty")
    assert json.loads(data.stdout)["chunks"] == 2
    missing = run(home, "status", "--store", store_url, "--collection", "c9",
                  cwd=home / "empty")
    assert missing.returncode == 2 and "'c9' não existe" in missing.stderr
