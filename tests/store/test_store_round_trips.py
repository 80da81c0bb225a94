"""What a question costs on a network: the real `docai` process reads a real PostgreSQL
through a TCP proxy on 127.0.0.1 that counts round trips (`bench/store_proxy.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from bench.store_proxy import DelayProxy, proxied_url, socket_of
from docai.retrieval import verdict
from docai.store import queries
from docai.store.search import StoreIndex
from tests.store.test_store_cli import DOCS, QA, index, run
from tests.support.fake_embeddings import EmbeddingOllama

# Statements a words-only question waits for: the generation with the question terms'
# packs, then the chunks they rank first with the terms of those the client has not read.
# On average: a multi-word name or a whole file (the fallback) costs more.
MAX_ROUND_TRIPS = 2.5
# A dense question over an embedded collection: the same two, with the collection's chunks
# nearest the question and the window vectors the client fuses its ranking from between
# them: three, plus what a multi-word name or the fallback costs on average (as words only).
MAX_DENSE_ROUND_TRIPS = MAX_ROUND_TRIPS + 1


def round_trips(home: Path, url: str, questions: list[str], *dense: str,
                env: dict[str, str] | None = None) -> int:
    with DelayProxy(socket_of(url)) as proxy:
        done = run(home, "search", "--json", *(dense or ("--dense", "off")), "--store",
                   proxied_url(url, proxy.port), "--collection", "docs",
                   stdin="\n".join(questions), cwd=home / "empty", env=env)
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == len(questions)
        return proxy.round_trips


def test_a_words_only_question_costs_about_two_round_trips(
    home: Path, store_url: str
) -> None:
    index(home, store_url)
    questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()]
    few, many = round_trips(home, store_url, questions[:1]), round_trips(home, store_url,
                                                                        questions[:11])
    per_question = (many - few) / 10
    assert per_question <= MAX_ROUND_TRIPS, per_question


def test_a_bridged_question_costs_two_words_only_questions(
    home: Path, store_url: str
) -> None:
    """A Portuguese question about English docs is ranked twice (its words, then joined by
    their rendering: `retrieval.crosslang`), each ranking the two statements of a question;
    the collection's languages come with the generation, no statement of their own."""
    index(home, store_url)
    asked = [json.loads(line) for line in QA.read_text().splitlines()]
    questions = [item["question"] for item in asked if item["lang"] == "pt"]
    few, many = round_trips(home, store_url, questions[:1]), round_trips(home, store_url,
                                                                        questions[:11])
    per_question = (many - few) / 10
    assert per_question <= 2 * MAX_ROUND_TRIPS, per_question


def test_a_dense_question_costs_one_round_trip_more_than_words_only(
    home: Path, store_url: str
) -> None:
    questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()]
    dense = ("--dense", "on", "--embed-model", "all-minilm")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        done = run(home, "index", "--embed", *dense, "--docs", str(DOCS), "--store", store_url,
                   "--collection", "docs", env=env)
        assert done.returncode == 0, done.stderr
        few = round_trips(home, store_url, questions[:1], *dense, env=env)
        many = round_trips(home, store_url, questions[:11], *dense, env=env)
    per_question = (many - few) / 10
    assert per_question <= MAX_DENSE_ROUND_TRIPS, per_question


def test_a_collection_changed_between_two_statements_is_read_again_in_one_snapshot(
    home: Path, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statements of a question run outside a transaction: an indexer's change between
    them (the revision moves on) sends the question to one READ ONLY snapshot, with the
    same passages."""
    index(home, store_url)
    questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()][:5]
    steady = StoreIndex(store_url, "docs")
    expected = [verdict.search(steady, question, 3) for question in questions]
    steady.close()
    first_statement = queries.generation_and_packs
    moved: list[bool] = []
    calls: list[bool] = []

    def then_an_indexer_writes(*args: object, **kwargs: object) -> object:
        calls.append(True)
        found = first_statement(*args, **kwargs)  # type: ignore[arg-type]
        if not moved:  # once: the snapshot's own statement must see a still collection
            with psycopg.connect(store_url, autocommit=True) as conn:
                conn.execute("UPDATE docai_generations SET revision = revision + 1, "
                             "packed_revision = revision + 1")
            moved.append(True)
        return found

    monkeypatch.setattr(queries, "generation_and_packs", then_an_indexer_writes)
    racing = StoreIndex(store_url, "docs")
    got = []
    for question in questions:
        moved.clear()
        got.append(verdict.search(racing, question, 3))
    racing.close()
    assert got == expected
    assert len(calls) == 2 * len(questions)  # each question read again, in one snapshot
