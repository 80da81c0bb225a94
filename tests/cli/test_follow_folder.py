"""The index follows the docs folder while docai runs: a file added, changed and deleted
beside a running REPL (the real process in a pty) or `docai mcp` (the SDK's client) is
reflected in the next answer, with one line saying so; a file still being written waits."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio
import pexpect
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import write_docs

PROMPT = "docai>"
NOT_COVERED = "Não encontrei nada sobre isso na documentação"


def settle(path: Path) -> None:
    """As if the file had been written a while ago (a save that finished)."""
    past = time.time() - 30
    os.utime(path, (past, past))


def test_a_file_added_changed_and_deleted_while_the_repl_runs(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    page = docs / "zorblax.md"
    with FakeOllama(reply="Resposta [1].", think_shape="none") as fake:
        child = pexpect.spawn(DOCAI, ["--docs", str(docs), "--dense", "off"],
                              env=docai_env(tmp_path, fake.url), encoding="utf-8",
                              timeout=60, dimensions=(40, 160))
        child.expect(PROMPT)
        child.sendline("Como ligo o zorblax?")
        child.expect(NOT_COVERED)
        child.expect(PROMPT)
        page.write_text("# Zorblax\n\n## Ligar\n\nO zorblax liga com --zorblax-on.\n",
                        encoding="utf-8")
        child.sendline("Como ligo o zorblax?")  # written just now: still being written
        child.expect(NOT_COVERED)
        child.expect(PROMPT)
        settle(page)
        child.sendline("Como ligo o zorblax?")
        child.expect(r"1 arquivo\(s\) atualizado\(s\) na pasta desde a última pergunta "
                     r"\(1 novo\(s\), 0 alterado\(s\), 0 removido\(s\)\)")
        child.expect(r"\[1\] zorblax\.md:3 > Zorblax > Ligar")
        child.expect(PROMPT)
        page.write_text("# Zorblax\n\n## Desligar\n\nO zorblax desliga com --zorblax-off.\n",
                        encoding="utf-8")
        settle(page)
        child.sendline("Como desligo o zorblax?")
        child.expect(r"\(0 novo\(s\), 1 alterado\(s\), 0 removido\(s\)\)")
        child.expect(r"\[1\] zorblax\.md:3 > Zorblax > Desligar")
        child.expect(PROMPT)
        page.unlink()
        child.sendline("Como desligo o zorblax?")
        child.expect(r"\(0 novo\(s\), 0 alterado\(s\), 1 removido\(s\)\)")
        child.expect(NOT_COVERED)
        child.expect(PROMPT)
        child.sendline("sair")
        child.expect(pexpect.EOF)


def test_docai_mcp_reads_a_file_added_while_it_serves(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    params = StdioServerParameters(command=DOCAI, args=["mcp", "--docs", str(docs),
                                                        "--dense", "off"],
                                   env=docai_env(tmp_path, "http://127.0.0.1:9"))

    async def main() -> Any:
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                before = await session.call_tool("search_docs", {"query": "zorblax"})
                page = docs / "zorblax.md"
                page.write_text("# Zorblax\n\nO zorblax liga com --zorblax-on.\n",
                                encoding="utf-8")
                settle(page)
                after = await session.call_tool("search_docs", {"query": "zorblax"})
                return before, after

    before, after = anyio.run(main)
    assert before.structured_content["results"] == []
    assert [hit["source"] for hit in after.structured_content["results"]] == ["zorblax.md"]
    assert "1 arquivo(s) atualizado(s)" in (tmp_path / "stderr.txt").read_text(encoding="utf-8")


def test_a_new_file_the_index_leaves_out_is_not_said_to_be_included(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    with FakeOllama(reply="Resposta [1].", think_shape="none") as fake:
        child = pexpect.spawn(DOCAI, ["--docs", str(docs), "--dense", "off"],
                              env=docai_env(tmp_path, fake.url), encoding="utf-8",
                              timeout=60, dimensions=(40, 200))
        child.expect(PROMPT)
        child.sendline("Como ligo o zorblax?")
        child.expect(NOT_COVERED)
        child.expect(PROMPT)
        page = docs / "zorblax.md"
        page.write_text("# Zorblax\n\n## Ligar\n\nO zorblax liga com --zorblax-on.\n",
                        encoding="utf-8")
        empty = docs / "vazio.md"
        empty.write_text("\n", encoding="utf-8")  # no text: the index leaves it out
        settle(page)
        settle(empty)
        child.sendline("Como ligo o zorblax?")
        child.expect(r"2 arquivo\(s\) atualizado\(s\) na pasta desde a última pergunta "
                     r"\(2 novo\(s\), 0 alterado\(s\), 0 removido\(s\)\); 1 deles ficou"
                     r"\(aram\) de fora do índice")
        child.expect(r"\[1\] zorblax\.md:3 > Zorblax > Ligar")
        child.expect(PROMPT)
        child.sendline("sair")
        child.expect(pexpect.EOF)
