"""Nothing the model, a server or the docs folder holds can drive the user's terminal.

Through the real CLI against the fake Ollama over HTTP: the model replies with escape
sequences (clear screen, window title, an OSC 52 clipboard write), split across pieces of
the stream; a docs file's name holds a newline and escape sequences. What reaches stdout
and stderr carries no control character but newlines and tabs (NO_COLOR is set and the
output is a pipe, so docai writes no codes of its own), and a file name stays on its line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, write_docs

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
EVIL_NAME = "guia\n\x1b]0;janela\x07\x1b[31mvermelho.md"
SHOWN_NAME = r"guia\n\x1b]0;janela\x07\x1b[31mvermelho.md"  # every control escaped, visibly
EVIL_DOC = (
    "# Instalação \x1b[2J\n\n## Com pip\n\nPara instalar o docai, rode `pip install docai` "
    "\x1b]52;c;ZXZpbA==\x07num ambiente virtual com Python 3.11.\n"
)
# The reply as the model streams it: every sequence is cut between two pieces.
CHUNKS = [
    "Rode pip ", "install\x1b[", "2J docai", " \x1b]52;c;ZXZp", "bA==\x07[1].\x1b",
    "]0;título\x1b", "\\ fim\x9b31m", ". \x1b",
]
REPLY_SHOWN = "Rode pip install docai [1]. fim."
THINKING = "Penso \x1b]0;x\x07 nisso \x1b[1A\x1b[2K."


@pytest.fixture
def evil_docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / EVIL_NAME).write_text(EVIL_DOC, encoding="utf-8")
    return root


@pytest.fixture
def evil_model() -> FakeOllama:
    with FakeOllama(chunks=CHUNKS, thinking=THINKING) as server:
        yield server


def assert_clean(*outputs: str) -> None:
    for output in outputs:
        assert CONTROL.findall(output) == [], output


def test_an_answer_with_escape_sequences_split_across_pieces_reaches_the_terminal_clean(
    docai: InProcessDocai, tmp_path: Path, evil_docs: Path, evil_model: FakeOllama
) -> None:
    docai.use_env(tmp_path, evil_model.url)
    done = docai("ask", QUESTION, "--docs", evil_docs, "--show-thinking")
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout, done.stderr)
    # piped, the reasoning goes to stderr, labelled: stdout is the answer alone
    assert "Raciocínio do modelo:\nPenso  nisso .\n" in done.stderr
    answer, sources = done.stdout.split("Fontes:")
    assert answer.strip() == REPLY_SHOWN
    assert sources.strip().splitlines() == [f"[1] {SHOWN_NAME}:3 > Instalação > Com pip"]


def test_search_shows_a_hostile_file_name_on_one_line_and_json_keeps_it_exact(
    docai: InProcessDocai, tmp_path: Path, evil_docs: Path
) -> None:
    where = ["--docs", evil_docs, "--cache-dir", tmp_path / "cache"]
    plain = docai("search", QUESTION, *where)
    assert plain.returncode == 0, plain.stderr
    assert_clean(plain.stdout, plain.stderr)
    first, *passage = plain.stdout.splitlines()
    assert first.startswith("1. [") and f"] {SHOWN_NAME}:3 — Instalação > Com pip" in first
    assert "pip install docai num ambiente virtual" in " ".join(passage)

    as_json = docai("search", QUESTION, "--json", *where)
    assert as_json.returncode == 0, as_json.stderr
    assert_clean(as_json.stdout)
    assert json.loads(as_json.stdout)["results"][0]["source"] == EVIL_NAME


def test_the_index_report_lists_a_hostile_name_on_its_own_line(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = write_docs(tmp_path / "docs")
    (docs / "vazio\n\x1b]52;c;ZXZpbA==\x07.md").write_text("", encoding="utf-8")
    done = docai("index", "--docs", docs, "--cache-dir", tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout, done.stderr)
    skipped = [line for line in done.stdout.splitlines() if "vazio" in line]
    assert len(skipped) == 1
    assert skipped[0].startswith(r"  vazio\n\x1b]52;c;ZXZpbA==\x07.md: ")


def test_the_repl_sources_command_keeps_each_source_on_its_line(
    docai: InProcessDocai, tmp_path: Path, evil_docs: Path, evil_model: FakeOllama
) -> None:
    docai.use_env(tmp_path, evil_model.url)
    done = docai("--docs", evil_docs, stdin=f"{QUESTION}\n/fontes\nsair\n")
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout, done.stderr)
    assert REPLY_SHOWN in done.stdout
    assert f"  [1] {SHOWN_NAME}:3 > Instalação > Com pip" in done.stdout.splitlines()


def test_a_server_error_with_escape_sequences_is_shown_clean(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = write_docs(tmp_path / "docs")
    with FakeOllama(think_shape="none", error_after=2,
                    error_message="falhou\x1b[2J\x1b]0;t\x07 de vez") as server:
        docai.use_env(tmp_path, server.url)
        done = docai("ask", QUESTION, "--docs", docs)
    assert done.returncode == 1
    assert_clean(done.stdout, done.stderr)
    assert "falhou de vez" in done.stderr
