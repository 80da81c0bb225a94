"""History pages placed below content, alike from the shared store and the local index: a
changelog whose entries name the guide's options gives the same `search -k 20 --json` from
either, words only and with the dense default (the store reads as deep as history moves)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.store.test_store_cli import DOCS, QA, run
from tests.support.fake_embeddings import EmbeddingOllama

# Short entries holding the words of the guide's questions, as a project's changelog does.
CHANGELOG = """# Changelog

## Version 2.0

- `--chunk-overlap` limits: must be at least 0 and smaller than `--chunk-size`.
- The default chat model is now deepseek-r1.
- `--min-coverage` sets the passage bar; docai needs Python 3.11.

## Version 1.0

- First release: `docai ask`, `docai search` and `docai index`.
"""
HISTORY = ["What changed in version 2.0?", "O que mudou na versão 2.0?"]
CONTENT = "--chunk-overlap limits"


def questions() -> str:
    asked = [json.loads(line)["question"] for line in QA.read_text().splitlines()]
    return "\n".join([*asked, *HISTORY])


def with_changelog(home: Path) -> Path:
    docs = home / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "CHANGELOG.md").write_text(CHANGELOG, encoding="utf-8")
    return docs


def sources(stdout: str, question: str) -> list[str]:
    for line in stdout.splitlines():
        found = json.loads(line)
        if found["query"] == question:
            return [hit["source"] for hit in found["results"]]
    raise AssertionError(f"no results for {question!r}")


def test_words_only_the_store_places_history_as_the_local_index_does(
    home: Path, store_url: str,
) -> None:
    docs = with_changelog(home)
    shared = ("--store", store_url, "--collection", "docs")
    done = run(home, "index", "--docs", str(docs), *shared, "--dense", "off")
    assert done.returncode == 0, done.stderr
    search = ("search", "-k", "20", "--json", "--dense", "off")
    local = run(home, *search, "--docs", str(docs), stdin=questions())
    client = run(home, *search, *shared, cwd=home / "empty", stdin=questions())
    assert local.returncode == client.returncode == 0, client.stderr
    assert client.stdout == local.stdout
    content = sources(local.stdout, CONTENT)
    assert content[0] == "options.md" and "CHANGELOG.md" not in content[:3]
    for question in HISTORY:
        assert sources(local.stdout, question)[0] == "CHANGELOG.md", question


def test_with_meaning_the_store_places_history_as_the_local_index_does(
    home: Path, store_url: str,
) -> None:
    docs = with_changelog(home)
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        dense = ("--dense", "on", "--embed-model", "all-minilm")
        shared = ("--store", store_url, "--collection", "docs")
        for where in (shared, ()):
            done = run(home, "index", "--embed", *dense, "--docs", str(docs), *where, env=env)
            assert done.returncode == 0, done.stderr
        search = ("search", "-k", "20", "--json", *dense)
        local = run(home, *search, "--docs", str(docs), stdin=questions(), env=env)
        client = run(home, *search, *shared, cwd=home / "empty", stdin=questions(), env=env)
    assert local.returncode == client.returncode == 0, client.stderr
    assert client.stdout == local.stdout
    assert "CHANGELOG.md" not in sources(local.stdout, CONTENT)[:3]
