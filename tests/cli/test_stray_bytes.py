"""A byte that is not UTF-8 (in a file name, a question typed, piped or given as an argument)
never ends a command or a session, and `--json` stays valid Unicode: the real `docai` process,
the fake Ollama over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pexpect

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import REPLY, write_docs

QUESTION = b"Como instalo o docai com \xff pip?"  # a stray byte in a covered question


def docs_with_a_bad_name(root: Path) -> Path:
    docs = write_docs(root)
    # Not valid UTF-8: Python sees the name as "caf\udce9.md".
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"# Quitar\n\nDigite sair para encerrar a sessao do docai.\n")
    return docs


def run(home: Path, url: str, *args: str | bytes | Path, stdin: bytes = b"",
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([DOCAI, *args], env=docai_env(home, url), input=stdin,
                          capture_output=True, timeout=120, check=False)


def test_ask_answers_when_a_file_name_is_not_utf8(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    docs = docs_with_a_bad_name(tmp_path / "docs")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "ask", "Como encerrar a sessao?")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert REPLY.encode() in done.stdout
    assert rb"caf\xe9.md" in done.stdout  # the source, shown as `ls -b` would
    sent = fake_ollama.chat_requests[-1]["messages"][-1]["content"]
    assert "sair para encerrar" in sent


def test_a_question_with_a_stray_byte_is_answered_from_argv_and_stdin(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    for args, stdin in (((QUESTION,), b""), (("-",), QUESTION + b"\n")):
        done = run(tmp_path, fake_ollama.url, "--docs", docs, "ask", *args, stdin=stdin)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        assert REPLY.encode() in done.stdout
        assert "\ufffd pip" in fake_ollama.chat_requests[-1]["messages"][-1]["content"]


def test_search_json_is_valid_unicode(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    docs = docs_with_a_bad_name(tmp_path / "docs")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "--json", "search",
               b"sair \xff encerrar sessao")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    text = done.stdout.decode("utf-8")  # strict: no lone surrogate reaches the output
    assert "\\ud" not in text
    found = json.loads(text)
    assert found["query"] == "sair \ufffd encerrar sessao"
    assert "caf\ufffd.md" in [result["source"] for result in found["results"]]


def test_the_repl_answers_a_typed_stray_byte_and_the_session_goes_on(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = docs_with_a_bad_name(tmp_path / "docs")
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, fake_ollama.url),
                          timeout=60, dimensions=(40, 160))
    child.expect(b"docai>")
    child.send(QUESTION + b"\r")
    child.expect_exact(REPLY.encode())
    child.expect(b"docai>")
    child.sendline(b"Como encerrar a sessao?")
    child.expect_exact(REPLY.encode())
    child.expect(b"docai>")
    child.sendline(b"sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
