"""Faults found by trying docai as an unlucky or hostile user would, beyond the ones first
reported: random bytes for a question, output to a full disk, a questions file that never
ends, a config file that is a pipe or starts with a byte-order mark (the real `docai`)."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import REPLY, write_docs


def run(home: Path, url: str, *args: str | Path, stdin: bytes = b"", **kwargs: object,
        ) -> subprocess.CompletedProcess[bytes]:
    options: dict[str, object] = {"capture_output": True, **kwargs}
    return subprocess.run([DOCAI, *args], env=docai_env(home, url), input=stdin, timeout=60,
                          check=False, cwd=home, **options)  # type: ignore[call-overload]


def config_path(home: Path) -> Path:
    path = home / "config" / "docai" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_random_bytes_as_questions_are_answered_or_refused(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    # Noise, and a name of two capitalised words with a stray byte in it.
    noise = random.Random(24).randbytes(20_000) + b"\nComo uso o Visual Stu\xffdio Code?\n"
    for args in (("ask", "-"), ("--json", "search"), ()):
        done = run(tmp_path, fake_ollama.url, "--docs", docs, *args, stdin=noise)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        assert b"inesperado" not in done.stderr
        if "--json" in args:
            for line in done.stdout.decode("utf-8").splitlines():
                json.loads(line)


def test_output_to_a_full_disk_is_one_error_line(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    docs = write_docs(tmp_path / "docs")
    with open("/dev/full", "wb") as full:
        done = run(tmp_path, fake_ollama.url, "--docs", docs, "-q", "search", "pip",
                   capture_output=False, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 74
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docai: erro:") and "espaço" in lines[0]


def test_a_questions_file_that_never_ends_is_refused_and_a_pipe_is_read(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "eval", "/dev/zero")
    assert done.returncode == 2 and b"/dev/zero" in done.stderr
    assert b"inesperado" not in done.stderr
    question = {"id": "pip", "question": "Como instalo o docai com pip?",
                "gold": [{"source": "guide/install.md", "answer": "pip install docai"}]}
    piped = run(tmp_path, fake_ollama.url, "--docs", docs, "eval", "/dev/stdin",
                stdin=json.dumps(question).encode() + b"\n")
    assert piped.returncode == 0, piped.stderr
    assert b"1 perguntas" in piped.stdout


def test_a_config_file_that_is_a_pipe_is_one_error_line_not_a_hang(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    os.mkfifo(config_path(tmp_path))
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "search", "pip")
    assert done.returncode == 2
    assert b"config.toml" in done.stderr and b"arquivo comum" in done.stderr


def test_a_config_file_with_a_byte_order_mark_is_read(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    config_path(tmp_path).write_bytes(b"\xef\xbb\xbfmodel = \"llama3.2\"\n")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "-q", "ask", "Como instalo com pip?")
    assert done.returncode == 0, done.stderr
    assert REPLY.encode() in done.stdout
    assert fake_ollama.chat_requests[-1]["model"] == "llama3.2"


def test_a_config_folder_that_is_a_file_means_no_config_file(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    (tmp_path / "config").write_text("not a folder\n", encoding="utf-8")  # XDG_CONFIG_HOME
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "-q", "ask", "Como instalo com pip?")
    assert done.returncode == 0, done.stderr
    assert REPLY.encode() in done.stdout
