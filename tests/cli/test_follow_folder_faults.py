"""The REPL's folder follower (the real process in a pty) when what lands in the folder
is hostile: an ignore file git would half-skip, a PDF whose forms fan out to gigabytes, a
Markdown file that keeps markdown-it busy for minutes, a file dated a year ahead. The
session goes on, answers from what could be read, and the new page is found; docai and
every process it started stay under 1 GiB."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pytest

from tests.cli.mcp_wire import MEASURED, cap_memory
from tests.loading.bomb_pdfs import fan_out_pdf
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import write_docs

pytestmark = pytest.mark.timeout(900)
PROMPT = "docai>"
NOT_COVERED = "Não encontrei nada sobre isso na documentação"
# An expected line that has not come by then never will: the bombs take their time limit.
EXPECT_TIMEOUT_S = 240


def settle(path: Path) -> None:
    """As if the file had been written a while ago (a save that finished)."""
    past = time.time() - 30
    os.utime(path, (past, past))


def test_the_repl_goes_on_past_hostile_files_and_finds_the_new_page(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    with FakeOllama(reply="Resposta [1].", think_shape="none") as fake:
        child = pexpect.spawn(sys.executable, ["-c", MEASURED, DOCAI, "--docs", str(docs),
                                               "--dense", "off"],
                              env=docai_env(tmp_path, fake.url), encoding="utf-8",
                              timeout=EXPECT_TIMEOUT_S, dimensions=(40, 160),
                              preexec_fn=cap_memory)
        child.expect(PROMPT)
        (docs / ".gitignore").write_text("[z-a]\n\\\n!\nrascunho.md\n", encoding="utf-8")
        (docs / "bomba.pdf").write_bytes(fan_out_pdf())
        (docs / "colchetes.md").write_text("[" * 300_000, encoding="utf-8")
        (docs / "zorblax.md").write_text(
            "# Zorblax\n\n## Ligar\n\nO zorblax liga com --zorblax-on.\n", encoding="utf-8")
        for name in (".gitignore", "bomba.pdf", "colchetes.md", "zorblax.md"):
            settle(docs / name)
        child.sendline("Como ligo o zorblax?")
        child.expect(r"\[1\] zorblax\.md:3 > Zorblax > Ligar")
        child.expect(PROMPT)
        ahead = time.time() + 365 * 24 * 3600
        (docs / "quuxbar.md").write_text("# Quuxbar\n\nO quuxbar desliga tudo.\n",
                                         encoding="utf-8")
        os.utime(docs / "quuxbar.md", (ahead, ahead))
        deadline = time.monotonic() + EXPECT_TIMEOUT_S
        found = False
        while not found and time.monotonic() < deadline:  # each question looks again
            child.sendline("O que o quuxbar faz?")
            found = child.expect([r"\[1\] quuxbar\.md", NOT_COVERED]) == 0
            child.expect(PROMPT)
            time.sleep(0.2)  # the poll's pace, not a wait for an event
        assert found
        child.sendline("sair")
        child.expect(r"peak_kb=(\d+)")  # docai and every process it started, at their peak
        assert int(child.match.group(1)) < 1 << 20  # under 1 GiB
        child.expect(pexpect.EOF)
