"""What the user's surroundings may hold: a folder where the REPL's history file goes, bidi
controls in a heading (the real `docai` process; the REPL in a pty)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: shows what follows it reversed


def spawn_repl(tmp_path: Path, url: str) -> pexpect.spawn:
    docs = write_docs(tmp_path / "docs")
    return pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, url),
                         encoding="utf-8", timeout=60, dimensions=(40, 160))


def answer_then_leave(child: pexpect.spawn) -> None:
    """A question answered at the prompt, then `sair`, and the session ends cleanly."""
    child.sendline(QUESTION)
    child.expect_exact(REPLY)
    child.expect("docai>")
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert "Unhandled exception" not in child.before and "Press ENTER" not in child.before
    assert child.exitstatus == 0


def test_a_history_path_that_is_a_folder_is_one_warning_and_the_session_works(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    (tmp_path / "data" / "docai" / "history").mkdir(parents=True)  # XDG_DATA_HOME/docai
    child = spawn_repl(tmp_path, fake_ollama.url)
    child.expect("não consigo gravar o histórico em .*history")
    child.expect("docai>")
    answer_then_leave(child)


def test_bidi_controls_and_line_separators_in_a_heading_never_reach_the_terminal(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs", {
        "guide.md": f"# Instalação {BIDI}fdp.exe\u2028linha\n\nPara instalar o docai com pip, rode "
                    f"pip install docai {BIDI}num ambiente virtual.\n",
    })
    env = docai_env(tmp_path, fake_ollama.url)
    for command in ("search", "ask"):
        done = subprocess.run([DOCAI, "--docs", docs, command, QUESTION], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert "guide.md" in done.stdout
        assert BIDI not in done.stdout + done.stderr
        if command == "ask":
            assert REPLY in done.stdout
        assert r"\u202efdp.exe\u2028linha" in done.stdout  # a heading shows them, escaped


def test_an_escape_sequence_typed_at_the_prompt_loses_the_line_not_the_session(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """prompt_toolkit reads `ESC [ 31 m` (pasted coloured text) as a mouse report and fails."""
    child = spawn_repl(tmp_path, fake_ollama.url)
    child.expect("docai>")
    child.send("\x1b[31m\r")  # read as nothing: an empty line
    child.expect("Escreva uma pergunta")
    child.expect("docai>")
    answer_then_leave(child)
