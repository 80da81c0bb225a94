"""The shared store through the real `docai` command, against a real PostgreSQL + pgvector."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import psycopg

from tests.support.docai_cli import DOCAI, docai_env

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "resources" / "docs"
QA = ROOT / "tests" / "eval" / "docai.jsonl"


def run(home: Path, *args: str, cwd: Path | None = None, stdin: str = "",
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = docai_env(home, "http://127.0.0.1:9")
    environment.update(env or {})
    return subprocess.run([DOCAI, *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or home, env=environment, timeout=300)


def error_lines(stderr: str) -> list[str]:
    """stderr without the warning a password on the command line gets (a line of its own)."""
    return [line for line in stderr.strip().splitlines()
            if "senha do PostgreSQL está na linha de comando" not in line]


def index(home: Path, url: str, docs: Path = DOCS, *extra: str) -> None:
    done = run(home, "index", "--docs", str(docs), "--store", url, "--collection", "docs",
               "--dense", "off", *extra)
    assert done.returncode == 0, done.stderr


def test_a_client_without_docs_gets_the_local_top_passages(home: Path, store_url: str) -> None:
    index(home, store_url)
    questions = "\n".join(json.loads(line)["question"] for line in QA.read_text().splitlines())
    local = run(home, "search", "--json", "--dense", "off", "--docs", str(DOCS), stdin=questions)
    shared = run(home, "search", "--json", "--dense", "off", "--store", store_url,
                 "--collection", "docs", cwd=home / "empty", stdin=questions)
    assert local.returncode == shared.returncode == 0, shared.stderr
    assert len(local.stdout.splitlines()) == 30
    assert shared.stdout == local.stdout


def test_eval_gives_the_same_figures_and_refusals(home: Path, store_url: str) -> None:
    index(home, store_url)
    local = run(home, "eval", str(QA), "--json", "--dense", "off", "--docs", str(DOCS))
    shared = run(home, "eval", str(QA), "--json", "--dense", "off", "--store", store_url,
                 "--collection", "docs", cwd=home / "empty")
    assert local.returncode == shared.returncode == 0, shared.stderr
    figures, expected = json.loads(shared.stdout), json.loads(local.stdout)
    figures.pop("docs"), expected.pop("docs")  # the folder each read, as given
    assert figures == expected
    assert expected["overall"]["hit@1"] > 0


def test_a_generation_without_languages_is_bridged_after_the_next_run(
    home: Path, store_url: str
) -> None:
    """A generation an older docai wrote has no languages: its Portuguese questions about
    these English docs are ranked by their own words alone until an indexing run, with no
    file changed, writes the languages; then they get the local index's passages."""
    index(home, store_url)
    with psycopg.connect(store_url, autocommit=True) as conn:
        (written,) = conn.execute("SELECT languages FROM docai_generations").fetchone()
        conn.execute("UPDATE docai_generations SET languages = NULL")
    shares = json.loads(written)
    assert max(shares, key=shares.__getitem__) == "english"
    asked = [json.loads(line) for line in QA.read_text().splitlines()]
    questions = "\n".join(item["question"] for item in asked if item["lang"] == "pt")
    local = run(home, "search", "--json", "--dense", "off", "--docs", str(DOCS), stdin=questions)
    client = ("search", "--json", "--dense", "off", "--store", store_url, "--collection", "docs")
    unknown = run(home, *client, cwd=home / "empty", stdin=questions)
    assert local.returncode == unknown.returncode == 0, unknown.stderr
    assert unknown.stdout != local.stdout  # not bridged
    index(home, store_url)
    with psycopg.connect(store_url) as conn:
        assert conn.execute("SELECT languages FROM docai_generations").fetchone() == (written,)
    bridged = run(home, *client, cwd=home / "empty", stdin=questions)
    assert bridged.stdout == local.stdout


def test_while_an_indexer_changes_files_readers_rank_through_the_database_alike(
    home: Path, store_url: str
) -> None:
    """Packs not of the collection's revision (an indexing run between two files) are not
    read: the database ranks the candidates, with the same passages as the packs give."""
    index(home, store_url)
    questions = "\n".join(json.loads(line)["question"] for line in QA.read_text().splitlines())
    packed = run(home, "search", "--json", "--dense", "off", "--store", store_url,
                 "--collection", "docs", stdin=questions)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE docai_generations SET revision = revision + 1")
        conn.execute("DELETE FROM docai_packs")  # a pack read now would rank nothing
    through_sql = run(home, "search", "--json", "--dense", "off", "--store", store_url,
                      "--collection", "docs", stdin=questions)
    assert packed.returncode == through_sql.returncode == 0, through_sql.stderr
    assert through_sql.stdout == packed.stdout
    index(home, store_url)  # the next run packs again
    with psycopg.connect(store_url) as conn:
        row = conn.execute("SELECT packed_revision = revision, (SELECT count(*) FROM "
                           "docai_packs) FROM docai_generations").fetchone()
    assert row is not None and row[0] and row[1] > 0


def test_a_schema_of_version_1_is_upgraded_by_the_indexer(home: Path, store_url: str) -> None:
    index(home, store_url)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("DROP TABLE docai_packs")
        conn.execute("DROP INDEX docai_chunks_pack_row")
        conn.execute("ALTER TABLE docai_chunks DROP COLUMN pack_row")
        conn.execute("ALTER TABLE docai_generations DROP COLUMN packed_revision")
        conn.execute("ALTER TABLE docai_chunks DROP COLUMN location_unit")
        conn.execute("ALTER TABLE docai_chunks DROP COLUMN location_number")
        conn.execute("ALTER TABLE docai_generations DROP COLUMN updated")
        for table in ("docai_postings", "docai_term_stats"):
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_generation")
        conn.execute("DELETE FROM docai_schema")
        conn.execute("INSERT INTO docai_schema (version) VALUES (1)")
    refused = run(home, "search", "instalar", "--dense", "off", "--store", store_url,
                  "--collection", "docs")
    assert refused.returncode == 2
    assert "mais antigo (esquema 1" in refused.stderr and "docai index --store" in refused.stderr
    index(home, store_url)
    done = run(home, "search", "--json", "--dense", "off", "--store", store_url,
               "--collection", "docs", stdin="Como instalar o docai?")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"]


def test_incremental_update_changes_only_what_changed(home: Path, store_url: str) -> None:
    docs = home / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe frobnicator spins widgets.\n")
    (docs / "b.md").write_text("# Beta\n\nGadgets are polished by hand.\n")
    index(home, store_url, docs)
    (docs / "b.md").write_text("# Beta\n\nGadgets are now polished by the quux machine.\n")
    (docs / "a.md").unlink()
    done = run(home, "index", "--docs", str(docs), "--store", store_url, "--collection", "docs",
               "--dense", "off")
    assert done.returncode == 0, done.stderr
    assert "0 novos, 1 alterados, 1 removidos" in done.stdout
    found = run(home, "search", "--json", "--dense", "off", "--store", store_url,
                "--collection", "docs", "quux machine", cwd=home / "empty")
    hits = json.loads(found.stdout)["results"]
    assert [hit["source"] for hit in hits] == ["b.md"]
    gone = run(home, "search", "--json", "--dense", "off", "--store", store_url,
               "--collection", "docs", "frobnicator widgets", cwd=home / "empty")
    assert json.loads(gone.stdout)["results"] == []


def test_sql_looking_names_headings_and_questions_are_only_data(
    home: Path, store_url: str
) -> None:
    docs = home / "docs"
    docs.mkdir()
    hostile = "'; DROP TABLE chunks; --"
    (docs / f"{hostile}.md").write_text(f"# {hostile}\n\nThe bobby tables section.\n")
    (docs / "other.md").write_text("# Other\n\nNothing to see.\n")
    index(home, store_url, docs)
    found = run(home, "search", "--json", "--dense", "off", "--store", store_url,
                "--collection", "docs", f"{hostile} bobby tables", cwd=home / "empty")
    assert found.returncode == 0, found.stderr
    assert [hit["source"] for hit in json.loads(found.stdout)["results"]] == [f"{hostile}.md"]
    with psycopg.connect(store_url) as conn:
        tables = {row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE tablename LIKE 'docai_%'")}
        assert {"docai_chunks", "docai_files", "docai_postings"} <= tables
        assert conn.execute("SELECT count(*) FROM docai_chunks").fetchone() == (2,)


def test_read_only_role_searches_but_cannot_index(
    home: Path, store_url: str, pg_server: object
) -> None:
    index(home, store_url)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS docai_reader")
        conn.execute("CREATE ROLE docai_reader LOGIN PASSWORD 'S3cretPw'")
        conn.execute("GRANT pg_read_all_data TO docai_reader")
    reader = store_url.replace("postgres:@", "docai_reader:S3cretPw@")
    found = run(home, "search", "--json", "--dense", "off", "--store", reader,
                "--collection", "docs", "Como instalo o docai?", cwd=home / "empty")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"]
    (home / "docs").mkdir()
    (home / "docs" / "new.md").write_text("# New\n\nA new page.\n")
    denied = run(home, "index", "--docs", str(home / "docs"), "--store", reader,
                 "--collection", "docs", "--dense", "off")
    assert denied.returncode == 2
    assert "só pode ler" in denied.stderr
    assert len(error_lines(denied.stderr)) == 1
    assert "S3cretPw" not in denied.stdout + denied.stderr + found.stderr


def test_a_schema_from_a_newer_docai_is_reported_not_read(home: Path, store_url: str) -> None:
    index(home, store_url)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE docai_schema SET version = 99")
    for args in (["search", "instalar"], ["index", "--docs", str(DOCS)]):
        done = run(home, *args, "--dense", "off", "--store", store_url, "--collection", "docs")
        assert done.returncode == 2
        assert "mais novo (esquema 99" in done.stderr
        assert "Traceback" not in done.stderr


def test_unreachable_server_missing_database_and_collection(
    home: Path, store_url: str, tmp_path: Path
) -> None:
    down = f"postgresql://someone:Hidden99@/docs?host={tmp_path / 'nowhere'}"
    done = run(home, "search", "x", "--dense", "off", "--store", down, cwd=home / "empty")
    assert done.returncode == 2
    assert "não responde" in done.stderr and "Hidden99" not in done.stderr
    assert len(error_lines(done.stderr)) == 1
    missing = store_url.replace("/docai_test_", "/no_such_db_")
    done = run(home, "search", "x", "--dense", "off", "--store", missing, cwd=home / "empty")
    assert done.returncode == 2 and "não existe" in done.stderr
    index(home, store_url)
    done = run(home, "search", "x", "--dense", "off", "--store", store_url,
               "--collection", "nope", cwd=home / "empty")
    assert done.returncode == 2 and "'nope' não existe" in done.stderr and "'docs'" in done.stderr


def test_config_shows_the_store_without_its_password(home: Path) -> None:
    done = run(home, "config", env={"DOCAI_STORE": "postgresql://team:VerySecret@db/docs"})
    assert done.returncode == 0, done.stderr
    assert "postgresql://team:***@db/docs" in done.stdout
    assert "DOCAI_STORE" in done.stdout and "VerySecret" not in done.stdout


def test_a_database_without_pgvector_gets_the_sql_to_run(home: Path, pg_server: object) -> None:
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:  # type: ignore[attr-defined]
        conn.execute("DROP DATABASE IF EXISTS docai_plain")
        conn.execute("DROP ROLE IF EXISTS docai_plain")
        conn.execute("CREATE ROLE docai_plain LOGIN")
        conn.execute("CREATE DATABASE docai_plain OWNER docai_plain")
    from tests.store.conftest import database_url

    url = database_url(pg_server, "docai_plain").replace("postgres:@", "docai_plain:@")
    done = run(home, "index", "--docs", str(DOCS), "--store", url, "--dense", "off")
    assert done.returncode == 2
    assert "CREATE EXTENSION vector;" in done.stderr
    assert "Traceback" not in done.stderr


def test_indexing_into_the_store_counts_what_it_did_not_read(home: Path, store_url: str) -> None:
    """`docai index --store` says, as a local `docai index` does, how many files and folders
    it left unread by design and by the ignore rules, so none is dropped without a word."""
    docs = home / "mixed"
    (docs / "fotos").mkdir(parents=True)
    (docs / "guia.md").write_text("# Guia\n\nO termo alfazeta.\n", encoding="utf-8")
    (docs / "desenho.pages").write_text("x", encoding="utf-8")
    (docs / "fotos" / "logo.png").write_text("x", encoding="utf-8")
    (docs / ".docaiignore").write_text("rascunho.md\n", encoding="utf-8")
    (docs / "rascunho.md").write_text("# Rascunho\n\nnão lido\n", encoding="utf-8")
    done = run(home, "index", "--docs", str(docs), "--store", store_url, "--collection", "mixed",
               "--dense", "off")
    assert done.returncode == 0, done.stderr
    assert "2 arquivo(s) ou pasta(s) não lidos (1 de cada: .pages, .png)" in done.stdout
    assert "1 arquivo(s) ou pasta(s) deixados de fora por regras" in done.stdout
