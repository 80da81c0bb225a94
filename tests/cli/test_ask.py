"""`docai ask` as a user runs it: a real process, a real HTTP fake Ollama (or none at all)."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pexpect

from tests.answer.test_answerer import DOCS, REPLY, write_docs
from tests.cli.test_repl import DOCAI, QUESTION, docai_env
from tests.support.fake_ollama import FakeOllama


def run_ask(tmp_path: Path, url: str, question: str) -> subprocess.CompletedProcess[str]:
    docs = write_docs(tmp_path / "docs", DOCS)
    return subprocess.run(
        [DOCAI, "ask", question, "--docs", str(docs)],
        env=docai_env(tmp_path, url),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_ask_prints_the_answer_then_its_sources(tmp_path: Path) -> None:
    with FakeOllama(reply=REPLY) as fake:
        result = run_ask(tmp_path, fake.url, QUESTION)
    assert result.returncode == 0, result.stderr
    answer, sources = result.stdout.split("Fontes:")
    assert answer.strip() == REPLY
    assert sources.splitlines()[1] == "  [1] guide/install.md > Instalação > Com pip"
    assert "Vou procurar" not in result.stdout  # reasoning stays hidden
    assert len(fake.chat_requests) == 1


def test_ask_about_something_absent_answers_without_the_model(tmp_path: Path) -> None:
    with FakeOllama(reply=REPLY) as fake:
        result = run_ask(tmp_path, fake.url, "xyzzy plugh quux")
    assert result.returncode == 0
    assert "Não encontrei nada sobre isso na documentação" in result.stdout
    assert fake.requests == []


def test_docai_says_the_docs_do_not_cover_it_in_the_language_of_the_question(
    tmp_path: Path,
) -> None:
    with FakeOllama(reply=REPLY) as fake:
        english = run_ask(tmp_path / "en", fake.url, "What is the capital of the moon?")
        portuguese = run_ask(tmp_path / "pt", fake.url, "Qual é a capital da lua?")
    assert english.returncode == portuguese.returncode == 0
    assert "I found nothing about this in the documentation" in english.stdout
    assert "Não encontrei nada sobre isso na documentação" in portuguese.stdout
    assert fake.requests == []


def test_ask_with_the_server_down_shows_passages_and_fails(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    result = run_ask(tmp_path, url, QUESTION)
    assert result.returncode == 1
    assert "ollama serve" in result.stderr
    assert "[1] guide/install.md > Instalação > Com pip" in result.stdout
    assert "pip install docai num ambiente virtual" in result.stdout
    assert "Traceback" not in result.stderr


def test_ask_with_an_empty_question_explains_and_fails(tmp_path: Path) -> None:
    result = run_ask(tmp_path, "http://127.0.0.1:9", "   ")
    assert result.returncode == 2
    assert "a pergunta está vazia" in result.stderr


def test_an_unparsable_ollama_host_is_named_before_any_indexing(tmp_path: Path) -> None:
    result = run_ask(tmp_path, "999.999.1.1:99999", QUESTION)
    assert result.returncode == 2
    assert "999.999.1.1" in result.stderr and "OLLAMA_HOST" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "cache").exists()  # failed fast: no index was built


def test_a_server_that_sends_junk_gets_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    lines = ['{"message": {"content": "Rode "}}', '{"message": 5, "done": "sim"}']
    with FakeOllama(raw_lines=lines) as fake:
        result = run_ask(tmp_path, fake.url, QUESTION)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "a resposta parou no meio" in result.stderr


def test_a_slow_model_shows_a_waiting_line_and_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", DOCS)
    with FakeOllama(reply=REPLY, first_token_delay=30.0) as fake:
        env = docai_env(tmp_path, fake.url)
        env.pop("NO_COLOR")  # a real terminal, with its status line
        child = pexpect.spawn(DOCAI, ["ask", QUESTION, "--docs", str(docs)], env=env,
                              encoding="utf-8", timeout=60, dimensions=(24, 100))
        child.expect("aguardando o modelo…")
        child.sendintr()
        child.expect(r"\(resposta interrompida\)")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 130
    assert REPLY not in child.before


def test_a_replayed_answer_leaves_no_waiting_line(monkeypatch) -> None:
    import io

    from docai.answer.answerer import CacheReplay, Retrieved
    from docai.cli.render import AnswerPrinter
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
