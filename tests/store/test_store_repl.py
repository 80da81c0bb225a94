"""The REPL as a client of the shared store, in a folder with no docs: its greeting, `/info`,
`/reindexar` (a client never writes the store) and a conversation resumed with `-c`, whose
sources are found again in the collection."""

from __future__ import annotations

import re
from pathlib import Path

from tests.store.test_store_cli import index, run
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, write_docs


def client(home: Path, url: str, fake: FakeOllama, stdin: str, *extra: str) -> str:
    done = run(home, *extra, "--store", url, "--collection", "docs", "--dense", "off",
               cwd=home / "empty", stdin=stdin, env={"OLLAMA_HOST": fake.url})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "***" in done.stderr  # the password hidden
    return done.stdout


def test_a_store_client_reports_the_collection_and_resumes_with_its_sources(
    home: Path, store_url: str, numbered_ollama: FakeOllama
) -> None:
    index(home, store_url, write_docs(home / "docs"))
    first = client(home, store_url, numbered_ollama,
                   f"{QUESTION}\n/fontes\n/reindexar\n/info\nsair\n")
    assert "Resposta 1." in first
    assert re.search(r"\[1\] guide/install\.md:3 > Instalação > Com pip\n", first)
    reindex = first.split("docai> /reindexar", 1)[1].split("docai>", 1)[0]
    assert "O índice compartilhado (coleção docs: 2 arquivo(s)" in reindex
    assert ("`docai index --docs PASTA --store URL_DO_INDEXADOR --collection docs`"
            in reindex)  # the indexer's address: this reader's role cannot write
    info = first.split("docai> /info", 1)[1]
    assert "nenhuma pasta aqui: os trechos vêm do índice compartilhado" in info
    assert re.search(r"compartilhado: coleção docs em postgresql://\S*\*\*\*", info)
    assert re.search(r"trechos\s+\d+ trecho\(s\) de 2 arquivo\(s\)", info)
    assert "pergunta(s) até agora" in info and "Traceback" not in info

    resumed = client(home, store_url, numbered_ollama, "/fontes\nsair\n", "-c")
    assert re.search(r"\[1\] guide/install\.md:3 > Instalação > Com pip\n", resumed)
