"""The shared store under a team's load: readers during a rebuild, a killed indexer, two
indexers at once, a server that goes away mid-session. All against a real PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psycopg
import pytest

from docai.retrieval import verdict
from docai.retrieval.search_index import open_index
from docai.settings import Settings
from docai.store.indexer import lock_key_sql
from docai.store.search import StoreIndex
from tests.store.conftest import database_url
from tests.store.test_store_cli import run
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import REPLY

TOPICS = ("backup", "senha", "rede", "cache", "idioma", "atalhos", "proxy", "logs")
QUESTIONS = ("Como configuro o proxy?", "Onde ficam os logs?", "Como troco a senha?",
             "backup do cache", "atalhos de teclado")


def write_docs(folder: Path, files: int, edition: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        topic = TOPICS[number % len(TOPICS)]
        (folder / f"{number:03d}-{topic}.md").write_text(
            f"# {topic.title()} {number}\n\nComo ajustar {topic} no produto ({edition}): edite "
            f"o arquivo de {topic} e reinicie. Página {number} da edição {edition}.\n\n"
            f"## Detalhes de {topic}\n\nMais sobre {topic} {number}, edição {edition}.\n",
            encoding="utf-8")
    return folder


def local_results(home: Path, docs: Path) -> dict[str, object]:
    settings = Settings(docs_dir=docs, cache_dir=home / f"cache-{docs.name}", dense=False)
    index, _ = open_index(settings)
    return {q: verdict.retrieve(index, q, 3) for q in QUESTIONS}


def index_args(docs: Path, url: str, *extra: str) -> list[str]:
    return ["index", "--docs", str(docs), "--store", url, "--collection", "docs",
            "--dense", "off", *extra]


def test_readers_during_a_rebuild_see_one_version_or_the_other(
    tmp_path: Path, store_url: str
) -> None:
    docs = write_docs(tmp_path / "docs", 60, "antiga")
    assert run(tmp_path, *index_args(docs, store_url)).returncode == 0
    old = local_results(tmp_path, docs)
    new_docs = write_docs(tmp_path / "docs-new", 60, "nova")
    new = local_results(tmp_path, new_docs)
    errors: list[BaseException] = []
    seen: list[tuple[str, bool]] = []
    stop = threading.Event()

    def reader() -> None:
        index = StoreIndex(store_url, "docs")
        try:
            while not stop.is_set():
                for question in QUESTIONS:
                    got = verdict.retrieve(index, question, 3)
                    if got not in (old[question], new[question]):
                        raise AssertionError(f"a mixed result for {question!r}: {got}")
                    seen.append((question, got == new[question]))
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)
        finally:
            index.close()

    readers = [threading.Thread(target=reader) for _ in range(8)]
    for thread in readers:
        thread.start()
    # The same folder, rewritten: the rebuild reads the new edition.
    for path in new_docs.iterdir():
        (docs / path.name).write_bytes(path.read_bytes())
    rebuild = run(tmp_path, *index_args(docs, store_url, "--rebuild"))
    time.sleep(0.5)
    stop.set()
    for thread in readers:
        thread.join(timeout=120)
    assert rebuild.returncode == 0, rebuild.stderr
    assert not errors, errors[0]
    assert any(not is_new for _, is_new in seen) and any(is_new for _, is_new in seen)
    after = StoreIndex(store_url, "docs")
    assert {q: verdict.retrieve(after, q, 3) for q in QUESTIONS} == new


def test_a_killed_indexer_loses_nothing_and_the_next_run_finishes(
    tmp_path: Path, store_url: str
) -> None:
    docs = write_docs(tmp_path / "docs", 30, "antiga")
    assert run(tmp_path, *index_args(docs, store_url)).returncode == 0
    old = local_results(tmp_path, docs)
    write_docs(docs, 400, "nova")
    expected = local_results(tmp_path, docs)
    indexer = subprocess.Popen([DOCAI, *index_args(docs, store_url, "--rebuild")],
                               env=docai_env(tmp_path, "http://127.0.0.1:9"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    building = 0
    with psycopg.connect(store_url, autocommit=True) as conn:
        deadline = time.monotonic() + 120
        while building < 20 and time.monotonic() < deadline and indexer.poll() is None:
            row = conn.execute(
                "SELECT count(*) FROM docai_files f JOIN docai_collections c "
                "ON f.generation_id = c.building_generation").fetchone()
            building = int(row[0]) if row else 0
            time.sleep(0.05)
    assert indexer.poll() is None, "the indexer finished before it could be killed"
    os.kill(indexer.pid, signal.SIGKILL)
    indexer.wait()
    reader = StoreIndex(store_url, "docs")
    assert {q: verdict.retrieve(reader, q, 3) for q in QUESTIONS} == old  # readers unaffected
    with psycopg.connect(store_url) as conn:
        kept = conn.execute(
            "SELECT count(*) FROM docai_files f JOIN docai_collections c "
            "ON f.generation_id = c.building_generation").fetchone()
    assert kept is not None and kept[0] >= building  # what was committed is kept
    finish = run(tmp_path, *index_args(docs, store_url))
    assert finish.returncode == 0, finish.stderr
    assert "continuando a reconstrução" in finish.stderr
    assert f"{400 - kept[0]} novos" in finish.stdout  # the committed files are not read again
    assert {q: verdict.retrieve(reader, q, 3) for q in QUESTIONS} == expected


def test_a_second_indexer_waits_for_the_first(tmp_path: Path, store_url: str) -> None:
    docs = write_docs(tmp_path / "docs", 10, "antiga")
    assert run(tmp_path, *index_args(docs, store_url)).returncode == 0
    write_docs(docs, 12, "nova")
    with psycopg.connect(store_url, autocommit=True) as holder:
        holder.execute(f"SELECT pg_advisory_lock({lock_key_sql()})", ("docs",))
        second = subprocess.Popen([DOCAI, *index_args(docs, store_url)], text=True,
                                  env=docai_env(tmp_path, "http://127.0.0.1:9"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert second.stderr is not None
        waiting = second.stderr.readline()
        assert "outro docai está indexando a coleção 'docs'" in waiting
        time.sleep(1.0)
        assert second.poll() is None  # still waiting while the lock is held
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "2 novos, 10 alterados" in out
    both = [subprocess.Popen([DOCAI, *index_args(docs, store_url, "--rebuild")],
                             env=docai_env(tmp_path, "http://127.0.0.1:9"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(2)]
    assert [p.wait(timeout=120) for p in both] == [0, 0]
    reader = StoreIndex(store_url, "docs")
    assert {q: verdict.retrieve(reader, q, 3) for q in QUESTIONS} == local_results(tmp_path, docs)


@pytest.fixture
def own_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A server of this test's own, to stop and start again."""
    pgserver = pytest.importorskip("pgserver")
    folder = Path(tempfile.mkdtemp(prefix="docai-pg-own-"))
    server = pgserver.get_server(folder, cleanup_mode="stop")
    yield pgserver, folder, server
    pgserver.get_server(folder, cleanup_mode="delete").cleanup()


class Lines:
    """A stream's lines, read in a thread, waited for by content."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self.lines: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if text in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never came: {self.lines}")


def test_the_repl_survives_the_server_stopping_and_reconnects(
    tmp_path: Path, own_server  # type: ignore[no-untyped-def]
) -> None:
    pgserver, folder, server = own_server
    url = database_url(server, "postgres")
    docs = write_docs(tmp_path / "docs", 10, "antiga")
    assert run(tmp_path, *index_args(docs, url)).returncode == 0
    with FakeOllama(reply=REPLY) as model:
        repl = subprocess.Popen(
            [DOCAI, "--store", url, "--collection", "docs", "--dense", "off"], text=True,
            env=docai_env(tmp_path, model.url), cwd=tmp_path, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert repl.stdin is not None
        out, err = Lines(repl.stdout), Lines(repl.stderr)
        repl.stdin.write("Como ajustar o proxy no produto?\n")
        repl.stdin.flush()
        out.wait_for("pip install docai")
        server.cleanup()  # the server goes away mid-session
        repl.stdin.write("Como ajustar os logs no produto?\n")
        repl.stdin.flush()
        line = err.wait_for("PostgreSQL")
        assert "caiu" in line or "não responde" in line
        assert repl.poll() is None
        pgserver.get_server(folder, cleanup_mode="stop")  # back again
        repl.stdin.write("Como ajustar a senha no produto?\n")
        repl.stdin.flush()
        deadline = time.monotonic() + 60
        while sum("pip install docai" in x for x in out.lines) < 2:
            assert time.monotonic() < deadline, (out.lines, err.lines)
            time.sleep(0.05)
        repl.stdin.write("sair\n")
        repl.stdin.flush()
        assert repl.wait(timeout=60) == 0
    assert not any("Traceback" in x for x in err.lines)
    assert json.dumps(err.lines).count("PostgreSQL") == 1
