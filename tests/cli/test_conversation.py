"""The REPL holds a conversation: the real `docai` process in a pseudo-terminal, talking to a
fake Ollama over HTTP that records every request it gets."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.answer.conversation_docs import (
    BARE_SECTION,
    DOCS,
    FIRST,
    FOLLOWUP,
    FOLLOWUP_SECTION,
)
from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import write_docs

PROMPT = "docai>"


@pytest.fixture
def fake(numbered_ollama: FakeOllama) -> FakeOllama:
    return numbered_ollama


def roles(request: dict[str, Any]) -> list[str]:
    return [message["role"] for message in request["messages"]]


def current_prompt(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def section_attribute(section: str) -> str:
    return 'section="' + section.replace(">", "&gt;") + '"'


def test_a_follow_up_carries_the_conversation_and_finds_its_passage(
    tmp_path: Path, fake: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs", DOCS)
    child = pexpect.spawn(DOCAI, ["--docs", str(docs), "-k", "1"],
                          env=docai_env(tmp_path, fake.url), encoding="utf-8", timeout=60,
                          dimensions=(40, 160))
    child.expect(PROMPT)
    child.sendline(FIRST)
    child.expect(r"Resposta 1\.")
    child.expect(PROMPT)

    child.sendline(FOLLOWUP)
    child.expect(r"Resposta 2\.")
    child.expect(r"Fontes:\s+\[1\] indice\.md:\d+ > " + re.escape(FOLLOWUP_SECTION))
    child.expect(PROMPT)
    second = fake.chat_requests[1]
    assert roles(second) == ["system", "user", "assistant", "user"]
    assert [m["content"] for m in second["messages"][1:3]] == [FIRST, "Resposta 1."]
    assert section_attribute(FOLLOWUP_SECTION) in current_prompt(second)
    assert "historico.md" not in current_prompt(second)
    child.sendline("/fontes")
    child.expect(r"\[1\] indice\.md:\d+ > " + re.escape(FOLLOWUP_SECTION))

    child.sendline("/denovo")  # the same question again, a new answer, not the cache's
    child.expect(r"Resposta 3\.")
    child.expect(PROMPT)
    assert "repetida do cache" not in child.before
    retried = fake.chat_requests[2]
    assert retried["messages"] == second["messages"]  # the retried turn replaced the last

    child.sendline("/retry")
    child.expect(r"Resposta 4\.")
    child.expect(PROMPT)
    assert fake.chat_requests[3]["messages"] == second["messages"]

    child.sendline("/nova")
    child.expect("Conversa nova")
    child.sendline(FOLLOWUP)
    child.expect(r"Resposta 5\.")
    child.expect(r"Fontes:\s+\[1\] historico\.md:\d+ > " + re.escape(BARE_SECTION))
    child.expect(PROMPT)
    after_new = fake.chat_requests[4]
    assert roles(after_new) == ["system", "user"]  # no history, and read on its own words
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(fake.chat_requests) == 5


def test_retry_before_any_question_says_there_is_nothing_to_retry(
    docai: InProcessDocai, tmp_path: Path, fake: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs", DOCS)
    docai.use_env(tmp_path, fake.url)
    result = docai("--docs", docs, stdin=f"/denovo\n{FIRST}\n/reset\n/new\n/denovo\n")
    assert result.returncode == 0, result.stderr
    # before the first question, and after /reset: a new conversation has no last answer
    assert result.stdout.count("Nada para gerar de novo") == 2
    assert result.stdout.count("Conversa nova") == 2
    assert "Resposta 1." in result.stdout and "Resposta 2." not in result.stdout
    assert len(fake.chat_requests) == 1


def test_piped_questions_are_one_conversation(
    docai: InProcessDocai, tmp_path: Path, fake: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs", DOCS)
    docai.use_env(tmp_path, fake.url)
    result = docai("--docs", docs, "-k", "1", stdin=f"{FIRST}\n{FOLLOWUP}\n")
    assert result.returncode == 0, result.stderr
    second = fake.chat_requests[1]
    assert roles(second) == ["system", "user", "assistant", "user"]
    assert section_attribute(FOLLOWUP_SECTION) in current_prompt(second)


def test_ask_stays_one_shot(docai: InProcessDocai, tmp_path: Path, fake: FakeOllama) -> None:
    docs = write_docs(tmp_path / "docs", DOCS)
    docai.use_env(tmp_path, fake.url)
    for question in (FIRST, FOLLOWUP):
        result = docai("--docs", docs, "-k", "1", "ask", question)
        assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests
    assert roles(first) == roles(second) == ["system", "user"]
    # the follow-up, asked alone, is read on its own words
    assert section_attribute(BARE_SECTION) in current_prompt(second)


GUIDE = Path(__file__).resolve().parents[2] / "resources" / "docs"


def test_a_refused_follow_up_does_not_spoil_the_next_one(tmp_path: Path, fake: FakeOllama) -> None:
    """On the guide `make run` opens: after a follow-up the docs do not cover, the next
    follow-up is read with the question before it, not with the refused one's words."""
    child = pexpect.spawn(DOCAI, ["--docs", str(GUIDE), "--dense", "off"],
                          env=docai_env(tmp_path, fake.url), encoding="utf-8", timeout=60,
                          dimensions=(40, 160))
    child.expect(PROMPT)
    child.sendline("Onde fica o cache do índice?")
    child.expect(r"\[1\] cache\.html > The index cache")
    child.expect(PROMPT)
    child.sendline("e depois, como eu desfaço isso?")
    child.expect("Não encontrei nada sobre isso na documentação")
    child.expect(PROMPT)
    child.sendline("e no Mac, onde fica?")
    child.expect(r"\[1\] cache\.html > The index cache > Where the cache lives")
    child.expect(PROMPT)
    child.sendline("sair")
    child.expect(pexpect.EOF)
    assert len(fake.chat_requests) == 2  # the refused question never reached the model
