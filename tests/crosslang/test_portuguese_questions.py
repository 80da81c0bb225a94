"""Portuguese questions about docai's own guide (English pages), through the real `docai`
process: the first folder a new user tries.

A question in Portuguese is read in the passages' language too (its words rendered beside
its own), so it finds the English page that answers it; a lower-case name the guide never
mentions ("kubernetes") is a name all the same, and the question is refused without
calling the model.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from docai import messages
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama

GUIDE = Path(__file__).resolve().parents[2] / "resources" / "docs"
EXIT_STATUS = "Qual código de saída o docai devolve quando há um erro?"
REPLY = "Em caso de erro o docai sai com status 2 [1]."


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY, think_shape="none") as server:
        yield server


def run(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    # Words only (`--dense off`): what `docai search` and MCP give before a folder is embedded.
    return subprocess.run([DOCAI, *args, "--docs", str(GUIDE), "--dense", "off"],
                          env=docai_env(tmp_path, url), text=True, capture_output=True,
                          timeout=300, check=False)


def test_a_portuguese_question_finds_the_english_page_and_is_answered_from_it(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    searched = run(tmp_path, ollama.url, "search", "--json", EXIT_STATUS)
    assert searched.returncode == 0, searched.stderr
    hits = json.loads(searched.stdout)["results"]
    assert any(hit["source"] == "commands.md" and "exit with status 2" in hit["text"]
               for hit in hits[:3])

    asked = run(tmp_path, ollama.url, "ask", EXIT_STATUS)
    assert asked.returncode == 0, asked.stderr
    assert REPLY in asked.stdout
    prompt = ollama.chat_requests[-1]["messages"][-1]["content"]
    assert "exit with status 2" in prompt
    assert "commands.md" in asked.stdout  # cited


@pytest.mark.parametrize("question", [
    "como conecto o docai no kubernetes?",
    "o docai funciona com o terraform?",
])
def test_a_lower_case_name_the_guide_never_mentions_is_refused(
    tmp_path: Path, ollama: FakeOllama, question: str
) -> None:
    asked = run(tmp_path, ollama.url, "ask", question)
    assert asked.returncode == 0, asked.stderr
    assert messages.ANSWER_NOT_COVERED.split(".")[0] in asked.stdout + asked.stderr
    assert ollama.chat_requests == []
