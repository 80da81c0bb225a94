"""`docai ask` as a user runs it, against a real HTTP fake Ollama (or none at all).

The command runs through `cli.main` in this process; Ctrl-C at a terminal is the one case
that needs a real `docai` process in a pty.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pexpect

from tests.support.docai_cli import DOCAI, InProcessDocai, Result, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.network import closed_port_url
from tests.support.sample_docs import QUESTION, REPLY, write_docs


def ask(docai: InProcessDocai, home: Path, url: str, question: str) -> Result:
    docs = write_docs(home / "docs")
    docai.use_env(home, url)
    return docai("ask", question, "--docs", docs)


def test_ask_prints_the_answer_then_its_sources(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    result = ask(docai, tmp_path, fake_ollama.url, QUESTION)
    assert result.returncode == 0, result.stderr
    answer, sources = result.stdout.split("Fontes:")
    assert answer.strip() == REPLY
    assert sources.splitlines()[1] == "  [1] guide/install.md:3 > Instalação > Com pip"
    assert "Vou procurar" not in result.stdout  # reasoning stays hidden
    assert len(fake_ollama.chat_requests) == 1


def test_ask_about_something_absent_answers_without_the_model(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    result = ask(docai, tmp_path, fake_ollama.url, "xyzzy plugh quux")
    assert result.returncode == 0
    assert "Não encontrei nada sobre isso na documentação" in result.stdout
    assert fake_ollama.requests == []


def test_docai_says_the_docs_do_not_cover_it_in_the_language_of_the_question(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    english = ask(docai, tmp_path / "en", fake_ollama.url, "What is the capital of the moon?")
    portuguese = ask(docai, tmp_path / "pt", fake_ollama.url, "Qual é a capital da lua?")
    assert english.returncode == portuguese.returncode == 0
    assert "I found nothing about this in the documentation" in english.stdout
    assert "Não encontrei nada sobre isso na documentação" in portuguese.stdout
    assert fake_ollama.requests == []


def test_ask_with_the_server_down_shows_passages_and_fails(
    docai: InProcessDocai, tmp_path: Path, quick_retries: None
) -> None:
    result = ask(docai, tmp_path, closed_port_url(), QUESTION)
    assert result.returncode == 1
    assert "ollama serve" in result.stderr
    assert "[1] guide/install.md:3 > Instalação > Com pip" in result.stdout
    assert "pip install docai num ambiente virtual" in result.stdout
    assert "Traceback" not in result.stderr


def test_ask_with_an_empty_question_explains_and_fails(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    result = ask(docai, tmp_path, "http://127.0.0.1:9", "   ")
    assert result.returncode == 2
    assert "a pergunta está vazia" in result.stderr


def test_an_unparsable_ollama_host_is_named_before_any_indexing(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    result = ask(docai, tmp_path, "999.999.1.1:99999", QUESTION)
    assert result.returncode == 2
    assert "999.999.1.1" in result.stderr and "OLLAMA_HOST" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "cache").exists()  # failed fast: no index was built


def test_a_server_that_sends_junk_gets_a_clear_error_not_a_traceback(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    lines = ['{"message": {"content": "Rode "}}', '{"message": 5, "done": "sim"}']
    with FakeOllama(raw_lines=lines) as fake:
        result = ask(docai, tmp_path, fake.url, QUESTION)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "a resposta parou no meio" in result.stderr


def test_a_slow_model_shows_a_waiting_line_and_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    with FakeOllama(reply=REPLY, first_token_delay=30.0) as fake:
        env = docai_env(tmp_path, fake.url)
        env.pop("NO_COLOR")  # a real terminal, with its status line
        child = pexpect.spawn(DOCAI, ["ask", QUESTION, "--docs", str(docs)], env=env,
                              encoding="utf-8", timeout=60, dimensions=(24, 100))
        child.expect("aguardando o modelo…")
        deadline = time.monotonic() + 10
        while not fake.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)  # interrupt while the request waits for its first token
        assert fake.chat_requests, "docai never asked the model"
        child.sendintr()
        child.expect(r"\(resposta interrompida\)")
        shown = child.before
        child.expect(pexpect.EOF, timeout=10)
        child.close()
    assert child.exitstatus == 130
    assert REPLY not in shown


def test_a_replayed_answer_leaves_no_waiting_line(monkeypatch) -> None:
    import io

    from docai.answer.answerer import CacheReplay, Retrieved
    from docai.cli.output.render import AnswerPrinter
    from docai.llm.events import TextDelta

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Terminal()
    printer = AnswerPrinter(out, io.StringIO(), show_thinking=False)
    for event in (Retrieved(()), CacheReplay(), TextDelta("Resposta.")):
        printer.show(event)
    printer.finish()
    shown = out.getvalue()
    # the status line is erased before the replay note, not left above it
    assert shown.index("\r\x1b[K") < shown.index("(resposta repetida do cache)")


def test_ask_json_gives_the_answer_its_numbered_sources_and_timings_as_one_object(
    docai, sample_docs, fake_ollama, tmp_path
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    code, out, err = docai("ask", QUESTION, "--json", "--docs", sample_docs)
    assert code == 0, err
    answer = json.loads(out)  # one object, nothing else on stdout
    assert answer["question"] == QUESTION
    assert answer["answer"] == REPLY
    assert answer["status"] == "answered"
    assert answer["model"] == "deepseek-r1"
    first = answer["sources"][0]
    assert (first["number"], first["source"], first["heading"]) == (
        1, "guide/install.md", "Instalação > Com pip")
    assert "pip install docai" in first["text"]
    assert answer["timings"]["total_s"] >= 0
    assert answer["cut"] is False


def test_ask_json_says_when_the_docs_do_not_cover_the_question(
    docai, sample_docs, fake_ollama, tmp_path
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    code, out, err = docai("ask", "Qual é a capital da Mongólia?", "--json", "--docs",
                           sample_docs)
    assert code == 0, err
    answer = json.loads(out)
    assert (answer["status"], answer["sources"], answer["answer"]) == ("not_covered", [], "")
    assert fake_ollama.chat_requests == []


def test_ask_and_search_name_the_embedding_model_only_with_v(
    docai, sample_docs, fake_ollama, tmp_path, dense_on
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    note = "Busca por significado: multilingual-e5-small, embutido"
    for command in (["ask", QUESTION], ["search", QUESTION]):
        plain = docai(*command, "--docs", sample_docs)
        assert plain.returncode == 0, plain.stderr
        assert note not in plain.stderr
        verbose = docai(*command, "--docs", sample_docs, "-v")
        assert note in verbose.stderr
