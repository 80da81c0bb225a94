"""The `docai` REPL, talking to a fake Ollama over real HTTP.

At a terminal it is the real `docai` process in a pseudo-terminal (prompt_toolkit, Ctrl-C,
colours); questions piped in run through `cli.main` in this process. A stdin closed at
start-up (`docai <&-`) is something only a real process start can show.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

PROMPT = "docai>"


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY, thinking="Vou procurar nos documentos.") as server:
        yield server


def spawn_repl(tmp_path: Path, url: str) -> pexpect.spawn:
    docs = write_docs(tmp_path / "docs")
    child = pexpect.spawn(
        DOCAI,
        ["--docs", str(docs)],
        env=docai_env(tmp_path, url),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
    child.expect(r"docai pronto: 2 arquivo\(s\), \d+ trecho\(s\) de .*docs; modelo deepseek-r1")
    child.expect("/ajuda mostra os comandos; sair encerra")
    child.expect(PROMPT)
    return child


def test_conversation_answers_lists_sources_and_exits(tmp_path: Path, fake: FakeOllama) -> None:
    child = spawn_repl(tmp_path, fake.url)
    child.sendline(QUESTION)
    child.expect(re.escape(REPLY))
    child.expect(r"Fontes:\s+\[1\] guide/install\.md:3 > Instalação > Com pip")
    child.expect(PROMPT)
    assert "Vou procurar" not in child.before  # reasoning hidden by default

    child.sendline("/fontes")
    child.expect(r"\[1\] guide/install\.md:3 > Instalação > Com pip\s+Para instalar o docai, rode")
    child.sendline("/fontes 1")  # the cited passage whole, to its last word
    child.expect(r"\[1\] guide/install\.md:3 > Instalação > Com pip\s+Instalação > Com pip\s+"
                 r"Para instalar o docai, rode pip install docai num ambiente virtual com "
                 r"Python 3\.11\.")
    child.sendline("/fontes 9")
    child.expect(r"use /fontes N com N de 1 a \d+ \(o número que a resposta cita\); recebi '9'")
    child.sendline("/ajuda")
    child.expect(r"/k N\s+quantos trechos recuperar \(agora: 3; de 1 a 20\)")
    child.expect(r"/modelo NOME\s+troca o modelo \(agora: deepseek-r1\)")
    child.sendline(QUESTION)
    child.expect(r"\(resposta repetida do cache\)\s+" + re.escape(REPLY))
    (tmp_path / "docs" / "guide" / "install.md").write_text(
        "# Instalação\n\n## Com pip\n\nRode `pip install docai==2.0`.\n", encoding="utf-8"
    )
    child.sendline("/reindexar")
    child.expect(r"Índice atualizado: 2 arquivo\(s\)")
    child.sendline(QUESTION)
    child.expect(re.escape(REPLY))
    assert "repetida do cache" not in child.before
    assert "docai==2.0" in fake.chat_requests[-1]["messages"][1]["content"]
    child.sendline("/pensamento")
    child.expect("visível")
    child.sendline("/k 1")
    child.expect(r"Agora recupero 1 trecho\(s\) por pergunta")
    child.sendline("Qual é o padrão de --num-ctx?")
    child.expect("Vou procurar nos documentos.")
    child.expect(re.escape(REPLY))
    child.expect(r"Fontes:\s+\[1\] config\.md:3 > Configuração > Janela de contexto")
    child.expect(PROMPT)
    assert "[2]" not in child.before

    child.sendline("/k zero")
    child.expect(r"/k precisa de um número inteiro de 1 a 20, recebi 'zero'")
    child.sendline("/xyz")
    child.expect(r"comando desconhecido: /xyz\. Comandos: /ajuda, /fontes")
    child.sendline("   ")
    child.expect("Escreva uma pergunta sobre a documentação")
    child.sendline("xyzzy plugh quux")
    child.expect("Não encontrei nada sobre isso na documentação")
    child.sendline("/fontes")
    child.expect("A última pergunta não teve fontes")
    child.sendline("/quit")
    child.expect("Até logo!")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(fake.chat_requests) == 3
    history = tmp_path / "data" / "docai" / "history"
    assert f"+{QUESTION}" in history.read_text(encoding="utf-8")
    assert history.stat().st_mode & 0o777 == 0o600  # questions may name private things


def test_ctrl_c_stops_a_slow_answer_and_the_prompt_comes_back(
    tmp_path: Path, fake: FakeOllama
) -> None:
    fake.think_shape = "none"
    fake.reply = "Primeiro passo: " + "devagar " * 300 + "FIM."
    fake.chunk_delay = 0.2
    child = spawn_repl(tmp_path, fake.url)
    child.sendline(QUESTION)
    child.expect("Primeiro passo: devagar")  # streamed: shown long before the answer ends
    child.sendcontrol("c")
    child.expect(r"\(resposta interrompida\)")
    child.expect(PROMPT)
    assert "FIM." not in child.before

    fake.reply = REPLY
    fake.chunk_delay = 0.0
    child.send("texto que desisto de perguntar")
    child.sendcontrol("c")  # at the prompt: clears the line, does not quit
    child.sendline("/modelo llama3.2")
    child.expect(r"Modelo agora: llama3\.2")
    child.sendline("Qual é o padrão de --num-ctx?")
    child.expect(re.escape(REPLY))
    # Reasoning was never asked to be shown: its absence is not worth a note.
    assert "não tem modo de raciocínio" not in child.before
    child.expect(PROMPT)
    child.sendeof()
    child.expect("Até logo!")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    requests = fake.chat_requests
    assert [r["model"] for r in requests] == ["deepseek-r1", "llama3.2", "llama3.2"]
    assert not any("desisto" in r["messages"][1]["content"] for r in requests)


def test_piped_questions_are_answered_one_per_line(
    docai: InProcessDocai, tmp_path: Path, fake: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    result = docai(
        "--docs", docs,
        stdin=f"{QUESTION}\n\nQual é o padrão de --num-ctx?\nquit\nComo instalo com pipx?\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(REPLY) == 2
    assert "[1] guide/install.md:3 > Instalação > Com pip" in result.stdout
    assert "[1] config.md:3 > Configuração > Janela de contexto" in result.stdout
    assert "docai pronto" in result.stderr and "docai pronto" not in result.stdout
    assert len(fake.chat_requests) == 2


def test_piped_questions_the_model_cannot_answer_end_with_status_1(
    docai: InProcessDocai, tmp_path: Path, quick_retries: None
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, "http://127.0.0.1:9")  # nothing listens there
    result = docai("--docs", docs, stdin=f"{QUESTION}\n")
    assert result.returncode == 1
    assert "ollama serve" in result.stderr
    assert "pip install docai num ambiente virtual" in result.stdout  # the passages, at least


def test_stdin_closed_is_an_empty_session_not_a_crash(tmp_path: Path, fake: FakeOllama) -> None:
    docs = write_docs(tmp_path / "docs")
    result = subprocess.run(
        [DOCAI, "--docs", str(docs)],
        stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0),  # as `docai <&-`
        env=docai_env(tmp_path, fake.url),
        capture_output=True, text=True, timeout=90, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "docai pronto" in result.stderr
    assert fake.chat_requests == []


def test_shown_reasoning_is_dimmed_and_the_answer_is_not(tmp_path: Path, fake: FakeOllama) -> None:
    docs = write_docs(tmp_path / "docs")
    env = docai_env(tmp_path, fake.url)
    del env["NO_COLOR"]
    child = pexpect.spawn(
        DOCAI, ["--docs", str(docs), "--show-thinking"], env=env, encoding="utf-8", timeout=60,
        dimensions=(40, 160),
    )
    child.expect(PROMPT)
    child.sendline(QUESTION)
    child.expect(r"\x1b\[2mVou\s*\x1b\[0m")  # each piece of reasoning is dimmed
    child.expect(re.escape(REPLY))  # the answer arrives as plain text, with no codes inside
    child.sendline("exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
