"""A collection's answers do not depend on what else the database holds: near-copies and
unrelated collections beside it, an edit that keeps its text, a neighbour's drop; and no
rows are left behind by removals and drops. The real `docai` process against a real
PostgreSQL + pgvector, with the fake embedder (texts sharing words are near)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg

from tests.store.test_store_cli import DOCS, QA, run
from tests.store.test_store_concurrency import write_docs
from tests.support.fake_embeddings import EmbeddingOllama

SERVED = "all-minilm"
DENSE = ("--dense", "on", "--embed-model", SERVED)
AVX512 = "avx512f" in Path("/proc/cpuinfo").read_text()
TOLERANCE = 1e-6
# Short chunks: the collection holds several times the chunks a whole-collection ranking
# asks the database for (140), so which ones it gets back matters.
SHORT = ("--chunk-tokens", "64", "--chunk-overlap", "8")
# The near-copies' prefixes: words many questions use, so their windows come nearer.
PREFIXES = ("Nota: o que o docai faz, what the docai does: ",
            "Obs.: como o docai, how does docai do the: ",
            "Veja: qual o docai, which docai is the: ")


def questions() -> str:
    """The set's questions, Portuguese and English: a Portuguese one over these English
    docs is bridged (`retrieval.crosslang`) by the store's index as by the local one."""
    return "\n".join(json.loads(line)["question"] for line in QA.read_text().splitlines())


def mix(folder: Path) -> Path:
    """The docai set's Markdown files: the collection every test compares."""
    folder.mkdir(parents=True)
    for path in sorted(DOCS.glob("*.md")):
        shutil.copy(path, folder / path.name)
    return folder


def near_copy(source: Path, folder: Path, prefix: str) -> Path:
    """Every paragraph of `source` prefixed: a near-identical collection, its windows nearer
    many questions than the originals (the prefix has words the questions use)."""
    folder.mkdir(parents=True)
    for path in sorted(source.iterdir()):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")
        (folder / path.name).write_text(
            "\n\n".join(p if p.startswith("#") or not p.strip() else f"{prefix}{p}"
                        for p in paragraphs), encoding="utf-8")
    return folder


def shared(url: str, name: str) -> tuple[str, ...]:
    return ("--store", url, "--collection", name)


def index(home: Path, env: dict[str, str], docs: Path, *args: str) -> None:
    done = run(home, "index", *DENSE, *SHORT, "--docs", str(docs), *args, env=env)
    assert done.returncode == 0, done.stderr


def search(home: Path, env: dict[str, str], *args: str) -> list[dict[str, object]]:
    done = run(home, "search", "--json", "-k", "20", *DENSE, *SHORT, *args, env=env,
               stdin=questions(), cwd=home / "empty")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def passages(answer: dict[str, object]) -> list[tuple[object, ...]]:
    hits = answer.get("results") or []
    assert isinstance(hits, list)
    return [tuple((key, value) for key, value in sorted(hit.items()) if key != "score")
            for hit in hits]


def assert_same(got: list[dict[str, object]], expected: list[dict[str, object]]) -> None:
    """Sources, chunks and order equal, every score within 1e-6."""
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert passages(mine) == passages(theirs), mine.get("query")
        for a, b in zip(_scores(mine), _scores(theirs), strict=True):
            assert abs(a - b) <= TOLERANCE, (mine.get("query"), a, b)


def _scores(answer: dict[str, object]) -> list[float]:
    hits = answer.get("results") or []
    assert isinstance(hits, list)
    return [float(hit["score"]) for hit in hits]


def test_near_copies_and_an_unrelated_collection_do_not_change_the_dense_answers(
    home: Path, store_url: str
) -> None:
    docs = mix(home / "mix")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "on" if AVX512 else "off"}
        index(home, env, docs, "--embed")  # the local index
        local = search(home, env, "--docs", str(docs))
        neighbours = [(f"mix-v{n}", near_copy(docs, home / f"mix-v{n}", prefix))
                      for n, prefix in enumerate(PREFIXES, 2)]
        for name, folder in [("mix", docs), *neighbours,
                             ("other", write_docs(home / "other", 40, "outra"))]:
            index(home, env, folder, "--embed", *shared(store_url, name))
        assert_same(search(home, env, *shared(store_url, "mix")), local)


def embedded_share(home: Path, url: str) -> dict[str, object]:
    done = run(home, "store", "list", "--json", "--store", url)
    assert done.returncode == 0, done.stderr
    return {c["name"]: c for c in json.loads(done.stdout)["collections"]}


def test_an_edit_that_keeps_the_text_keeps_the_collection_embedded(
    home: Path, store_url: str
) -> None:
    docs = mix(home / "mix")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "on" if AVX512 else "off"}
        index(home, env, docs, "--embed", *shared(store_url, "mix"))
        first = sorted(docs.iterdir())[0]
        first.write_text(first.read_text(encoding="utf-8") + "\n<!-- x -->\n", encoding="utf-8")
        index(home, env, docs, *shared(store_url, "mix"))  # without --embed
        index(home, env, docs, "--embed")  # the local index
        local = search(home, env, "--docs", str(docs))
        listed = embedded_share(home, store_url)["mix"]
        assert_same(search(home, env, *shared(store_url, "mix")), local)
    assert list(listed["embedded"].values()) == [listed["chunks"]], listed


def vector_count(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM docai_vectors").fetchone()
    return int(row[0]) if row else 0


def test_dropping_a_collection_keeps_the_vectors_another_one_uses(
    home: Path, store_url: str
) -> None:
    docs = mix(home / "mix")
    other = write_docs(home / "other", 10, "outra")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        index(home, env, docs, "--embed", *shared(store_url, "a"))
        kept = vector_count(store_url)
        index(home, env, docs, "--rebuild", *shared(store_url, "a"))
        index(home, env, other, *shared(store_url, "b"))
        dropped = run(home, "store", "drop", "b", "--yes", "--store", store_url)
        assert dropped.returncode == 0, dropped.stderr
        assert vector_count(store_url) == kept > 0
        asked = len(server.embedded_texts())
        index(home, env, docs, "--embed", *shared(store_url, "a"))
        assert len(server.embedded_texts()) == asked  # nothing embedded again


def dead_rows(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        found = {}
        for name, query in (
            ("term_stats", "SELECT count(*) FROM docai_term_stats WHERE df <= 0"),
            ("terms", "SELECT count(*) FROM docai_terms t WHERE NOT EXISTS ("
                      "SELECT 1 FROM docai_term_stats s WHERE s.term_id = t.id)"),
            ("vectors", "SELECT count(*) FROM docai_vectors v WHERE NOT EXISTS ("
                        "SELECT 1 FROM docai_windows w WHERE w.key = v.key)"),
        ):
            row = conn.execute(query).fetchone()
            found[name] = int(row[0]) if row else 0
    return found


def test_removals_and_drops_leave_no_dead_rows(home: Path, store_url: str) -> None:
    docs = mix(home / "mix")
    other = write_docs(home / "other", 12, "outra")
    with EmbeddingOllama() as server:
        env = {"OLLAMA_HOST": server.url, "DOCAI_STORE_HNSW": "off"}
        index(home, env, docs, "--embed", *shared(store_url, "a"))
        index(home, env, other, "--embed", *shared(store_url, "b"))
        for path in sorted(docs.iterdir())[: len(list(docs.iterdir())) // 2]:
            path.unlink()
        index(home, env, docs, *shared(store_url, "a"))
        assert dead_rows(store_url) == {"term_stats": 0, "terms": 0, "vectors": 0}
        dropped = run(home, "store", "drop", "b", "--yes", "--store", store_url)
        assert dropped.returncode == 0, dropped.stderr
    assert dead_rows(store_url) == {"term_stats": 0, "terms": 0, "vectors": 0}
