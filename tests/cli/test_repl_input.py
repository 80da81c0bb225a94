"""Typing at the REPL as people do: multi-line questions (`\"\"\"` blocks, Alt-Enter, a paste),
the editor (`/editar`, Ctrl-X Ctrl-E), `/copiar` through OSC 52, `/info` and `/set`.

The real `docai` in a pseudo-terminal, a fake Ollama over HTTP whose request log shows the
question exactly as docai sent it; piped input runs through `cli.main` in this process.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

PROMPT = "docai>"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # the terminal's bracketed-paste marks


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY, think_shape="none") as server:
        yield server


def spawn(tmp_path: Path, url: str, extra_env: dict[str, str] | None = None) -> pexpect.spawn:
    docs = write_docs(tmp_path / "docs")
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)],
                          env={**docai_env(tmp_path, url), **(extra_env or {})},
                          encoding="utf-8", timeout=60, dimensions=(40, 160))
    child.expect(PROMPT)
    return child


def asked(request: dict[str, Any]) -> str:
    """The question inside the prompt docai sent (its last user message)."""
    content = str(request["messages"][-1]["content"])
    return content.rsplit("<question>", 1)[-1].split("</question>", 1)[0].strip()


def answer_and_prompt(child: pexpect.spawn) -> None:
    child.expect(re.escape(REPLY))
    child.expect(PROMPT)


def test_blocks_alt_enter_and_a_paste_each_make_one_question(
    tmp_path: Path, fake: FakeOllama
) -> None:
    child = spawn(tmp_path, fake.url)
    child.send('"""\r')
    child.send("Como instalo o docai\r")
    child.send("com pip?\r")
    child.send('"""\r')
    answer_and_prompt(child)
    assert len(fake.chat_requests) == 1
    assert asked(fake.chat_requests[-1]) == "Como instalo o docai\ncom pip?"

    child.send("Como instalo\x1b\rcom pipx?\r")  # Esc-Enter (what Alt-Enter sends)
    answer_and_prompt(child)
    assert len(fake.chat_requests) == 2
    assert asked(fake.chat_requests[-1]) == "Como instalo\ncom pipx?"

    child.send(PASTE_START + "Qual é o padrão\nde --num-ctx?\n" + PASTE_END)
    child.send("\r")
    answer_and_prompt(child)
    assert len(fake.chat_requests) == 3
    assert asked(fake.chat_requests[-1]) == "Qual é o padrão\nde --num-ctx?"
    child.sendline("sair")
    child.expect(pexpect.EOF)


def test_piped_blocks_are_one_question(tmp_path: Path, fake: FakeOllama,
                                       docai: InProcessDocai) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    code, _, err = docai("--docs", docs,
                         stdin=f'"""Como instalo\n\no docai com pip?\n"""\n{QUESTION}\n')
    assert code == 0, err
    assert [asked(request) for request in fake.chat_requests] == [
        "Como instalo\n\no docai com pip?", QUESTION]


def editor_script(tmp_path: Path) -> Path:
    """An $EDITOR that keeps what it was given (to `seen`) and adds a line to it."""
    script = tmp_path / "editor.sh"
    script.write_text(f'#!/bin/sh\ncp "$1" "{tmp_path}/seen"\n'
                      'printf "%s\\ncom pipx?\\n" "$(cat "$1")" > "$1"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_editar_and_ctrl_x_ctrl_e_ask_what_the_editor_saved(
    tmp_path: Path, fake: FakeOllama
) -> None:
    script = editor_script(tmp_path)
    child = spawn(tmp_path, fake.url, {"VISUAL": str(script)})
    child.sendline(QUESTION)
    answer_and_prompt(child)
    child.sendline("/editar")
    # What the editor saved is shown as a typed question is, before its answer.
    child.expect(re.escape(f"docai> {QUESTION}\r\n       com pipx?"))
    answer_and_prompt(child)
    assert (tmp_path / "seen").read_text(encoding="utf-8") == QUESTION + "\n"  # the last one
    assert asked(fake.chat_requests[-1]) == QUESTION + "\ncom pipx?"

    child.send("Como instalo o docai")
    child.sendcontrol("x")
    child.sendcontrol("e")
    answer_and_prompt(child)
    assert (tmp_path / "seen").read_text(encoding="utf-8") == "Como instalo o docai\n"
    assert asked(fake.chat_requests[-1]) == "Como instalo o docai\ncom pipx?"
    child.sendline("sair")
    child.expect(pexpect.EOF)


def test_editar_names_an_editor_that_does_not_open_and_needs_a_terminal(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    child = spawn(tmp_path, fake.url, {"VISUAL": str(tmp_path / "no-such-editor --wait")})
    child.sendline("/editar")
    child.expect(r"o editor '.*no-such-editor --wait' não abriu: No such file or directory")
    child.expect(PROMPT)
    child.send("Como instalo")
    child.sendcontrol("x")
    child.sendcontrol("e")  # the same editor, not another one found on the system
    child.expect(r"o editor '.*no-such-editor --wait' não abriu")
    child.sendline(" o docai")  # the line is kept as it was typed
    answer_and_prompt(child)
    assert asked(fake.chat_requests[-1]) == "Como instalo o docai"
    child.sendline("sair")
    child.expect(pexpect.EOF)
    docai.use_env(tmp_path, fake.url)
    code, out, _ = docai("--docs", tmp_path / "docs", stdin="/editar\n")
    assert code == 0 and "/editar precisa de um terminal" in out
    assert len(fake.chat_requests) == 1


def test_an_editor_variable_with_an_unclosed_quote_is_named_and_the_repl_goes_on(
    tmp_path: Path, fake: FakeOllama
) -> None:
    child = spawn(tmp_path, fake.url, {"VISUAL": "vi \"--wait"})
    child.sendline("/editar")
    child.expect(r"VISUAL='vi \"--wait' não é uma linha de comando")
    child.expect(PROMPT)
    child.sendcontrol("x")
    child.sendcontrol("e")
    child.expect(r"VISUAL='vi \"--wait' não é uma linha de comando")
    child.sendline(QUESTION)
    answer_and_prompt(child)
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_copiar_sends_the_answer_and_its_sources_through_osc_52(
    tmp_path: Path, fake: FakeOllama
) -> None:
    child = spawn(tmp_path, fake.url)
    child.sendline("/copiar")
    child.expect("Nada para copiar: faça uma pergunta primeiro")
    child.sendline(QUESTION)
    answer_and_prompt(child)
    child.sendline("/copiar")
    child.expect(r"\x1b\]52;c;([A-Za-z0-9+/=]+)\x07")
    copied = base64.b64decode(child.match.group(1)).decode("utf-8")
    assert copied == (f"{REPLY}\n\nFontes:\n[1] guide/install.md:3 > Instalação > Com pip\n"
                      "[2] guide/install.md:7 > Instalação > Com pipx")
    child.expect(r"Copiei a última resposta \(\d+ caracteres, 2 fonte\(s\)\)")
    child.sendline("sair")
    child.expect(pexpect.EOF)


def test_copiar_inside_real_tmux_reaches_its_clipboard(tmp_path: Path, fake: FakeOllama) -> None:
    """In a real tmux (3.3's defaults plus `set-clipboard on`, the setting the message
    names), /copiar puts the answer in tmux's own buffer: tmux drops the DCS-wrapped form.
    The advice to turn it on is given only while it is off."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed (Debian package tmux)")
    socket = f"docai-test-{os.getpid()}"
    docs = write_docs(tmp_path / "docs")
    env = docai_env(tmp_path, fake.url)
    command = " ".join(shlex.quote(part) for part in [DOCAI, "--docs", str(docs)])

    def run(*args: str) -> str:
        return subprocess.run([tmux, "-L", socket, "-f", "/dev/null", *args], env=env,
                              capture_output=True, text=True, check=True, timeout=30).stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            screen = run("capture-pane", "-p", "-t", "docai")
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never showed:\n{screen}")

    run("new-session", "-d", "-s", "docai", "-x", "120", "-y", "40", command)
    try:
        run("set-option", "-g", "set-clipboard", "on")
        wait_for("docai>")
        run("send-keys", "-t", "docai", QUESTION, "Enter")
        wait_for("Fontes:")
        run("send-keys", "-t", "docai", "/copiar", "Enter")
        screen = wait_for("Copiei a última resposta")
        assert "set -g set-clipboard on" not in " ".join(screen.split())  # already on
        assert run("show-buffer").startswith(REPLY)
        run("set-option", "-g", "set-clipboard", "off")  # now the advice is worth giving
        run("send-keys", "-t", "docai", "clear", "Enter")
        run("send-keys", "-t", "docai", "/copiar", "Enter")
        screen = wait_for("set-clipboard on")
        assert "o tmux está recusando" in " ".join(screen.split())
    finally:
        subprocess.run([tmux, "-L", socket, "kill-server"], env=env, capture_output=True)


def test_info_shows_what_is_in_force_and_set_changes_it_checked_as_the_options(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, "http://ana:s3gredo@127.0.0.1:" + str(fake.port))
    lines = ["/info", "/set k 0", "/set k dois", "/set tempratura 1", "/set temperature 2.5",
             "/set thinking talvez", "/set num_ctx 100", "/set",
             "/set k 1", "/set temperature 0.9", "/set num_ctx 4096", "/set thinking off",
             QUESTION, "/info"]
    code, out, err = docai("--docs", docs, stdin="\n".join(lines) + "\n")
    assert code == 0, err
    first, last = out.split("docai> /info")[1:]
    assert "s3gredo" not in out
    assert re.search(r"modelo\s+deepseek-r1 \(ollama em http://ana:\*\*\*@127\.0\.0\.1:\d+\)",
                     first)
    assert f"  Pasta: {docs.resolve()}" in first
    assert str(tmp_path / "cache") in first
    assert "  Arquivos indexados: 2 (md 2); 4 trecho(s)" in first
    assert "  A pasta não mudou desde então." in first
    assert re.search(r"busca\s+hybrid, k = 3, cobertura mínima 0\.65", first)
    assert "por significado desligada (--dense off)" in first
    assert "num_ctx         8192 tokens; temperatura 0.2" in first
    assert "raciocínio      pedido ao modelo; oculto" in first
    assert f"registro        ligado: {tmp_path / 'data' / 'docai' / 'log.sqlite3'}" in first
    assert "/set k: -k/--top-k deve ser de 1 a 20, recebi 0 (ex.: -k 5)" in out
    assert "/set k: valor inválido 'dois' (esperava um número inteiro)" in out
    assert "/set não muda 'tempratura'; você quis dizer temperature?" in out
    assert "/set temperature: --temperature deve ser um número de 0 a 2" in out
    assert "/set thinking: use on ou off, recebi 'talvez'" in out
    assert "/set num_ctx: --num-ctx deve ser de 512 a 1048576 tokens, recebi 100" in out
    assert "use /set NOME VALOR" in out
    [request] = fake.chat_requests
    assert request["options"]["num_ctx"] == 4096
    assert request["options"]["temperature"] == 0.9
    assert request["think"] is False
    assert "Com pipx" not in request["messages"][-1]["content"]  # k = 1: one passage
    assert "busca           hybrid, k = 1" in last
    assert "num_ctx         4096 tokens; temperatura 0.9" in last
    assert "raciocínio      não pedido (--no-think)" in last
    assert "conversa        1 pergunta(s)" in last


def test_salvar_writes_the_conversation_as_markdown_and_never_overwrites_a_users_file(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    monkeypatch.chdir(tmp_path)
    notes = tmp_path / "notas.md"
    notes.write_text("minhas notas\n", encoding="utf-8")
    lines = ["/salvar conversa.md", QUESTION, '"""Qual é o padrão', 'de --num-ctx?"""',
             "/salvar conversa.md", "/salvar conversa.md", "/salvar notas.md",
             "/salvar sem/pasta.md", "/salvar a\0b.md", "/salvar ~nosuchuser/x.md", "/salvar"]
    code, out, err = docai("--docs", docs, stdin="\n".join(lines) + "\n")
    assert code == 0, err
    assert "Nada para salvar: faça uma pergunta primeiro." in out
    assert out.count("Conversa gravada em conversa.md (2 pergunta(s)).") == 2  # docai's own
    assert "notas.md já existe e não foi gravado pelo docai" in out
    assert notes.read_text(encoding="utf-8") == "minhas notas\n"
    assert "não consegui gravar sem/pasta.md" in out and "Escolha outro caminho" in out
    assert "/salvar tem um caractere nulo no caminho 'a\\x00b.md'" in out  # the REPL went on
    assert "/salvar: não há usuário 'nosuchuser' para expandir" in out
    assert "use /salvar ARQUIVO.md" in out
    saved = (tmp_path / "conversa.md").read_text(encoding="utf-8")
    assert saved.startswith("<!-- docai: conversa -->\n\n# Conversa com o docai sobre ")
    assert (f"## 1. {QUESTION}\n\n{REPLY}\n\nFontes:\n\n"
            "1. [guide/install.md:3 > Instalação > Com pip](docs/guide/install.md)") in saved
    assert "## 2. Qual é o padrão\n\n> Qual é o padrão\n> de --num-ctx?\n\n" in saved
    assert (tmp_path / "conversa.md").stat().st_mode & 0o777 == 0o600


def test_a_conversation_saved_into_the_docs_folder_never_becomes_a_source(
    tmp_path: Path, docai: InProcessDocai, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's earlier output, saved with /salvar inside the docs folder, must not come
    back as documentation after /reindexar (nor at the next start): the user is warned
    when saving there, and the index says it left the file out."""
    docs = write_docs(tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    invented = "O zorblaxador se liga com --zorblax-on [1]."
    with FakeOllama(reply=invented, think_shape="none") as server:
        docai.use_env(tmp_path, server.url)
        lines = [QUESTION, "/salvar docs/conversa.md", "/reindexar",
                 "Como ligo o zorblaxador?", "sair"]
        code, out, err = docai("--docs", docs, "--dense", "off",
                               stdin="\n".join(lines) + "\n")
        asked = len(server.chat_requests)
    assert code == 0, err
    assert (docs / "conversa.md").read_text(encoding="utf-8").count("zorblax") >= 1
    assert "fica dentro da pasta de documentos" in out
    assert asked == 1  # the second question was refused, not answered from the transcript
    assert "Não encontrei nada sobre isso na documentação" in out
    code, out, err = docai("index", "--docs", docs, "-v")
    assert "conversa.md" in out + err and "conversa gravada pelo docai" in out + err


def test_abrir_opens_the_cited_file_in_the_editor_at_the_passages_line(
    tmp_path: Path, fake: FakeOllama
) -> None:
    script = tmp_path / "viewer.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/opened"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    child = spawn(tmp_path, fake.url, {"VISUAL": str(script)})
    child.sendline(QUESTION)
    answer_and_prompt(child)
    child.sendline("/abrir 2")
    deadline = time.monotonic() + 30
    while not (tmp_path / "opened").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    opened = (tmp_path / "opened").read_text(encoding="utf-8").split("\n")
    assert opened[:2] == ["+7", str((tmp_path / "docs" / "guide" / "install.md").resolve())]
    child.sendline("/abrir 7")
    child.expect(r"use /abrir N com N de 1 a 2")
    child.sendline("sair")
    child.expect(pexpect.EOF)
