"""A shared index is untrusted input, and every client command works on one: the real
`docai` process against a real PostgreSQL + pgvector whose rows a hostile or careless
writer changed, and an MCP client of a store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import psycopg
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.store.test_store_cli import run
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama, echo_last_user_message

DOCS = {
    "zebra.md": "# Zebrafoo\n\n## Uso\n\nO zebrafoo liga o modo rápido do painel.\n",
    "quux.md": "# Quuxbar\n\n## Ajuste\n\nO quuxbar define a cor do painel.\n",
}


def make_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def index(home: Path, url: str, docs: Path) -> None:
    done = run(home, "index", "--docs", str(docs), "--store", url, "--collection", "c2",
               "--dense", "off")
    assert done.returncode == 0, done.stderr


def test_a_source_the_database_names_outside_the_folder_is_never_read_from_disk(
    home: Path, store_url: str
) -> None:
    docs = make_docs(home / "cdocs")
    private = home / "private"
    private.mkdir()
    (private / "secret.md").write_text("# Segredo\n\nzebrafoo quuxbar SEGREDO-123\n",
                                       encoding="utf-8")
    index(home, store_url, docs)
    for hostile in (str(private / "secret.md"), "../private/secret.md"):
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute("UPDATE docai_files SET source = %s WHERE source = 'zebra.md' "
                         "OR source LIKE '%%secret.md'", (hostile,))
            conn.execute("UPDATE docai_chunks SET source = %s WHERE source = 'zebra.md' "
                         "OR source LIKE '%%secret.md'", (hostile,))
        with FakeOllama(reply=echo_last_user_message) as server:
            done = run(home, "ask", "--store", store_url, "--collection", "c2", "--docs",
                       str(docs), "--dense", "off", "-k", "1", "--min-coverage", "1",
                       "zebrafoo e quuxbar", env={"OLLAMA_HOST": server.url},
                       cwd=home / "cdocs")
            sent = json.dumps(server.chat_requests)
        assert done.returncode == 0, done.stderr
        assert "SEGREDO-123" not in sent + done.stdout, hostile
        assert server.chat_requests, done.stderr  # the model was asked, from the store's text


def test_text_from_the_store_is_cleaned_as_a_local_files_is(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE docai_chunks SET text = text || %s WHERE source = 'zebra.md'",
                     ("\u202e oculto \x1b]52;c;ZXZpbA==\x07\x1b[2J fim",))
    done = run(home, "search", "--json", "--store", store_url, "--collection", "c2",
               "--dense", "off", "zebrafoo", cwd=home / "empty")
    assert done.returncode == 0, done.stderr
    assert "\u202e" not in done.stdout and "\x1b" not in done.stdout
    text = json.loads(done.stdout)["results"][0]["text"]
    assert "\u202e oculto" in text and "fim" in text  # the same text for a JSON reader
    assert "52;c" not in text


def test_damaged_packs_are_named_as_such_and_the_repl_stays_open(
    home: Path, store_url: str
) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE docai_packs SET postings = substring(postings from 1 for 5)")
    args = ("--store", store_url, "--collection", "c2", "--dense", "off")
    searched = run(home, "search", *args, "zebrafoo", cwd=home / "empty")
    assert searched.returncode == 2
    assert "está danificado" in searched.stderr and "--rebuild" in searched.stderr
    assert "erro inesperado" not in searched.stderr
    repl = run(home, *args, "--no-log", cwd=home / "empty",
               stdin="zebrafoo\nquuxbar\n/info\n")
    assert repl.returncode == 0, repl.stderr
    assert repl.stdout.count("está danificado") + repl.stderr.count("está danificado") == 2
    assert "coleção c2" in repl.stdout  # /info ran: the session went on


def test_search_v_with_dense_on_a_store_ends_cleanly(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    done = run(home, "search", "-v", "--dense", "on", "--store", store_url, "--collection", "c2",
               "zebrafoo",
               cwd=home / "empty")
    assert done.returncode == 0, done.stderr
    assert "zebra.md" in done.stdout
    assert "trechos" in done.stderr and "Traceback" not in done.stderr


def test_docai_mcp_serves_a_store_collection(home: Path, store_url: str) -> None:
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    params = StdioServerParameters(
        command=DOCAI, args=["mcp", "--store", store_url, "--collection", "c2", "--dense", "off"],
        env=docai_env(home, "http://127.0.0.1:9"), cwd=str(home / "empty"))

    async def main() -> Any:
        with (home / "mcp-stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                listed = await session.call_tool("list_sources", {})
                found = await session.call_tool("search_docs", {"query": "zebrafoo"})
                return listed, found

    listed, found = anyio.run(main)
    assert not listed.is_error, listed.content
    assert listed.structured_content["sources"] == [
        {"source": "quux.md", "chunks": 1, "headings": ["Quuxbar > Ajuste"]},
        {"source": "zebra.md", "chunks": 1, "headings": ["Zebrafoo > Uso"]},
    ]
    assert found.structured_content["results"][0]["source"] == "zebra.md"
    stderr = (home / "mcp-stderr.txt").read_text(encoding="utf-8")
    assert "da coleção c2 do índice compartilhado" in stderr


def test_connection_mistakes_are_named_for_what_they_are(home: Path, store_url: str) -> None:
    ghost = store_url.replace("//postgres", "//fantasma", 1)
    assert ghost != store_url
    cases = [
        (ghost, "não tem o usuário (papel) 'fantasma'"),
        (store_url + "&sslmode=talvez", "invalid sslmode value"),
        ("service=nenhum_servico", "definition of service"),
    ]
    for url, expected in cases:
        done = run(home, "search", "--store", url, "--collection", "c2", "--dense", "off",
                   "zebrafoo", cwd=home / "empty")
        assert done.returncode == 2, (url, done.stderr)
        assert expected in done.stderr, done.stderr
        assert "está no ar" not in done.stderr


def test_rows_of_the_wrong_shape_are_a_damaged_store_not_a_crash(
    home: Path, store_url: str
) -> None:
    """Fault run: a heading path or a location a careless writer left malformed."""
    docs = make_docs(home / "cdocs")
    index(home, store_url, docs)
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE docai_chunks SET heading_path = '{}' WHERE source = 'zebra.md'")
        conn.execute("UPDATE docai_chunks SET location_unit = 'galáxia', location_number = -3")
    done = run(home, "search", "--json", "--store", store_url, "--collection", "c2",
               "--dense", "off", "zebrafoo", cwd=home / "empty")
    assert done.returncode == 0, done.stderr
    hit = json.loads(done.stdout)["results"][0]
    assert hit["source"] == "zebra.md" and hit["location"] is None
