"""The REPL and the model server, as a user meets them in a terminal (the real `docai` in a
pty, a fake Ollama over HTTP or nothing at all): the start-up check, `/modelo` refusing a
model that is not installed, Tab completion, a server that is down, Markdown answers."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from docai.llm.http import RetryPolicy
from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeModel, FakeOllama
from tests.support.network import closed_port_url
from tests.support.sample_docs import DOCS, QUESTION, REPLY, write_docs

PROMPT = "docai>"
# A doc whose own example looks like docai's prompt.
DOCS_WITH_PROMPT = {
    **DOCS,
    "guide/install.md": DOCS["guide/install.md"].replace(
        "num ambiente virtual com Python 3.11.",
        "num ambiente virtual com Python 3.11.\n\n    docai> Como instalo o docai com pip?",
    ),
}


def spawn(tmp_path: Path, url: str, *args: str, color: bool = False,
          docs: dict[str, str] = DOCS) -> pexpect.spawn:
    folder = write_docs(tmp_path / "docs", docs)
    env = docai_env(tmp_path, url)
    if color:
        del env["NO_COLOR"]
    return pexpect.spawn(DOCAI, ["--docs", str(folder), *args], env=env, encoding="utf-8",
                         timeout=60, dimensions=(40, 120))


def quit_(child: pexpect.spawn) -> None:
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_with_v_the_start_says_the_server_answers_and_the_model_is_installed(
    tmp_path: Path
) -> None:
    with FakeOllama(reply=REPLY) as fake:
        child = spawn(tmp_path, fake.url, "-v")  # all is well: said with -v only
        child.expect("Faça uma pergunta")
        child.expect(r"Ollama em http://127\.0\.0\.1:\d+ respondendo; modelo deepseek-r1 "
                     r"instalado\.")
        child.expect(PROMPT)
        quit_(child)
    assert fake.bodies("/api/tags") == [None]  # one GET, nothing sent to the model
    assert fake.chat_requests == []


def test_a_model_that_is_not_installed_is_named_at_start(tmp_path: Path) -> None:
    with FakeOllama(models=(FakeModel("llama3.2:latest"), FakeModel("qwen3:8b"))) as fake:
        child = spawn(tmp_path, fake.url)
        child.expect(r"o modelo 'deepseek-r1' não está instalado no Ollama em \S+\. Baixe-o "
                     r"com `ollama pull deepseek-r1` ou troque com /modelo NOME "
                     r"\(instalados: llama3\.2, qwen3:8b\)")
        child.expect(PROMPT)
        quit_(child)


def test_modelo_refuses_a_model_that_is_not_installed_and_lists_the_installed(
    tmp_path: Path,
) -> None:
    with FakeOllama(reply=REPLY) as fake:
        child = spawn(tmp_path, fake.url)
        child.expect(PROMPT)
        child.sendline("/modelo qwen3")
        child.expect(r"o modelo 'qwen3' não está instalado no Ollama em \S+; continuo com o "
                     r"atual\. Baixe-o com `ollama pull qwen3`, ou escolha um instalado: "
                     r"all-minilm, deepseek-r1, llama3\.2, nomic-embed-text")
        child.sendline("/modelo nomic-embed-text")
        child.expect(r"o modelo 'nomic-embed-text' não conversa")
        child.sendline("/ajuda")
        child.expect(r"/modelo NOME\s+troca o modelo \(agora: deepseek-r1\)")
        child.sendline(QUESTION)
        child.expect(re.escape(REPLY))
        child.expect(PROMPT)
        quit_(child)
    assert [body["model"] for body in fake.chat_requests] == ["deepseek-r1"]
    assert {"model": "nomic-embed-text:latest"} in fake.bodies("/api/show")


def test_modelo_on_a_server_that_cannot_list_models_says_it_could_not_check(
    tmp_path: Path,
) -> None:
    """A server that answers but not as Ollama does (no /api/tags): the switch is the
    user's call, but they are told it could not be checked, and why."""
    with FakeOllama(reply=REPLY, missing_paths=["/api/tags"]) as fake:
        child = spawn(tmp_path, fake.url)
        child.expect(PROMPT)
        child.sendline("/modelo llama3.2")
        child.expect(r"Modelo agora: llama3\.2\.")
        child.expect(r"aviso: não consegui confirmar que ele está instalado: o servidor em "
                     r"\S+ não conhece /api/tags")
        child.expect(PROMPT)
        quit_(child)


def test_tab_completes_commands_and_installed_model_names(tmp_path: Path) -> None:
    with FakeOllama(reply=REPLY) as fake:
        child = spawn(tmp_path, fake.url, "-v")  # -v: the check's "all is well" is said
        child.expect("respondendo")  # the model list is known
        child.expect(PROMPT)
        child.send("/mod")
        child.expect("/mod")
        child.send("\t")
        child.expect("elo")  # the rest of "/modelo", written by the completion
        child.send(" lla")
        child.expect("lla")
        child.send("\t")
        child.expect(r"ma3\.2")
        child.send("\r")
        child.expect(r"Modelo agora: llama3\.2\.")
        child.sendline(QUESTION)
        child.expect(re.escape(REPLY))
        child.expect(PROMPT)
        quit_(child)
    # (two requests: llama3.2 cannot reason, so it is asked again without `think`)
    assert {body["model"] for body in fake.chat_requests} == {"llama3.2"}


def test_tab_completes_set_names_thinking_switches_and_salvar_paths(tmp_path: Path) -> None:
    (tmp_path / "notas-da-reuniao.md").write_text("minhas notas\n", encoding="utf-8")
    with FakeOllama(reply=REPLY) as fake:
        folder = write_docs(tmp_path / "docs")
        child = pexpect.spawn(DOCAI, ["--docs", str(folder)], env=docai_env(tmp_path, fake.url),
                              encoding="utf-8", timeout=60, dimensions=(40, 120),
                              cwd=str(tmp_path))
        child.expect(PROMPT)
        child.send("/set tempe")
        child.expect("tempe")
        child.send("\t")
        child.expect("rature")  # the rest of "temperature", written by the completion
        child.send(" 0.5\r")
        child.expect(r"temperature agora: 0\.5\.")
        child.expect(PROMPT)
        child.send("/pensamento of")
        child.expect("of")
        child.send("\t")
        child.expect("f")
        child.send("\r")
        child.expect(PROMPT)
        child.send("/salvar notas-da")
        child.expect("notas-da")
        child.send("\t")
        child.expect(r"-reuniao\.md")
        child.send("\r")
        child.expect("Nada para salvar")
        child.expect(PROMPT)
        quit_(child)


def test_with_the_server_down_the_repl_opens_says_why_in_one_line_then_quotes_passages(
    tmp_path: Path,
) -> None:
    child = spawn(tmp_path, closed_port_url(), docs=DOCS_WITH_PROMPT)
    child.expect(r"aviso: o Ollama em http://127\.0\.0\.1:\d+ não responde \(inicie com "
                 r"`ollama serve`")
    child.expect(PROMPT)
    child.sendline(QUESTION)
    child.expect(r"docai: o modelo não respondeu: não consegui falar com o Ollama")
    assert "Trechos mais relevantes" not in child.before  # the cause comes first
    child.expect("Trechos mais relevantes da documentação")
    child.expect(r"\[1\] guide/install\.md:3 > Instalação > Com pip")
    child.expect(r"  │ Para instalar o docai, rode pip install docai")
    child.expect(r"  │\s+docai> Como instalo o docai com pip\?")  # a quote, not a prompt
    child.expect(PROMPT)
    quit_(child)


def test_once_the_server_is_known_down_questions_fail_without_retries(
    docai: InProcessDocai, tmp_path: Path, monkeypatch
) -> None:
    waits: list[int] = []
    real_delay = RetryPolicy.delay

    def recorded(policy: RetryPolicy, attempt: int) -> float:
        waits.append(attempt)
        return real_delay(policy, attempt) / 100

    monkeypatch.setattr(RetryPolicy, "delay", recorded)
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, closed_port_url())
    result = docai("--docs", docs, stdin=f"{QUESTION}\n{QUESTION}\n{QUESTION}\n")
    assert result.returncode == 1
    assert result.stderr.count("não consegui falar com o Ollama") == 3
    assert result.stdout.count("Trechos mais relevantes da documentação") == 3
    # Without the watch each of the three would wait out 3 retries; at most the first may
    # (should it start before the start-up check ends), the others are asked once.
    assert len(waits) <= 3


def test_answers_are_rendered_as_markdown_on_a_terminal(tmp_path: Path) -> None:
    reply = ("## Passos\n\n1. Rode **pip install docai** num *ambiente virtual*.\n"
             "2. Confira com `docai --version`.\n\n```\npip install docai\n```\n\nPronto [1].")
    with FakeOllama(reply=reply, think_shape="none") as fake:
        child = spawn(tmp_path, fake.url, color=True)
        child.expect(PROMPT)
        child.sendline(QUESTION)
        child.expect(r"Fontes:")
        shown = child.before
        child.expect(PROMPT)
        quit_(child)
    answer = shown[shown.index("Passos"):]
    assert "**" not in answer and "## " not in answer and "```" not in answer
    assert re.search(r"\x1b\[1m(\x1b\[\d+m)*pip install docai", answer)  # bold
    assert re.search(r"\x1b\[3m(\x1b\[\d+m)*ambiente virtual", answer)  # emphasis
    assert re.search(r" 1 .*Rode", answer) and "Pronto [1]." in answer


def test_markdown_stays_plain_text_when_piped(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    reply = "## Passos\n\n1. Rode **pip install docai**."
    with FakeOllama(reply=reply) as fake:
        docai.use_env(tmp_path, fake.url)
        result = docai("ask", QUESTION, "--docs", write_docs(tmp_path / "docs"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(reply + "\n")


def test_status_lines_and_labelled_reasoning_show_without_colours(tmp_path: Path) -> None:
    with FakeOllama(reply=REPLY, thinking="Vou procurar nos documentos.") as fake:
        child = spawn(tmp_path, fake.url, "--show-thinking")  # NO_COLOR is set
        child.expect(PROMPT)
        child.sendline(QUESTION)
        child.expect("aguardando o modelo…")
        child.expect(r"Raciocínio do modelo:\s+Vou procurar nos documentos\.")
        child.expect(re.escape(REPLY))
        assert "\x1b[2m" not in child.before  # no colours under NO_COLOR
        child.expect(PROMPT)
        child.sendline("clear")
        child.expect(re.escape("\x1b[H\x1b[2J"))
        child.expect(PROMPT)
        child.sendline("/bye")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0


def test_model_names_holding_escape_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    """A name `/api/tags` lists is untrusted: one holding OSC 52 (write the clipboard) and a
    screen clear is no model anyone can pull, and is dropped wherever the list is shown."""
    evil = "evil\x1b]52;c;ZXZpbA==\x07\x1b[2J:latest"
    models = (FakeModel("llama3.2:latest"), FakeModel(evil), FakeModel("qwen3:8b"))
    with FakeOllama(models=models) as fake:
        child = spawn(tmp_path, fake.url)
        child.expect(r"\(instalados: llama3\.2, qwen3:8b\)")  # the start-up note
        child.expect(PROMPT)
        child.sendline("/modelo mistral")
        child.expect(r"escolha um instalado: llama3\.2, qwen3:8b")
        child.expect(PROMPT)
        shown = child.before or ""
        quit_(child)
    assert "\x1b]52" not in shown and "\x1b[2J" not in shown
