"""`docai mcp`: the real `docai` process as an MCP server on stdio, driven by the official
SDK's own client (`mcp.client.stdio`), against a real docs folder; its passages compared
with what `docai search --json` prints for the same questions."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.sample_docs import DOCS, write_docs

# The sample folder, plus an English file a coding agent would search.
MORE_DOCS = {
    **DOCS,
    "deploy.md": (
        "# Deploy\n\n## Ports\n\nRun `widgetron serve --port 8080`. The default port is 8000."
        "\n\n## Workers\n\nUse `--workers N` to run N worker processes; the default is 2.\n"
    ),
}
QUESTIONS = [("What is the default port?", 3), ("Como instalo o docai com pip?", 2),
             ("quantos workers por padrão?", 1)]
NO_SERVER = "http://127.0.0.1:9"  # nothing listens: the server must never call a model

Session = Callable[[ClientSession], Awaitable[Any]]


def with_server(tmp_path: Path, docs: Path, use: Session) -> Any:
    """Start `docai mcp --docs DOCS`, run `use(session)` with the SDK's client, stop it."""
    params = StdioServerParameters(command=DOCAI, args=["mcp", "--docs", str(docs)],
                                   env=docai_env(tmp_path, NO_SERVER))

    async def main() -> Any:
        with (tmp_path / "server-stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                return await use(session)

    return anyio.run(main)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` with its size and modification time."""
    return {str(path): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("dense", ["off", "on"])
def test_an_mcp_client_lists_the_tools_and_gets_the_passages_docai_search_gives(
    tmp_path: Path, docai: InProcessDocai, monkeypatch: pytest.MonkeyPatch, dense: str
) -> None:
    monkeypatch.setenv("DOCAI_DENSE", dense)
    docs = write_docs(tmp_path / "docs", MORE_DOCS)
    for path in docs.rglob("*.md"):  # written long ago: the index has nothing to re-check
        os.utime(path, (1_700_000_000, 1_700_000_000))
    docai.use_env(tmp_path, NO_SERVER)
    expected = []
    for question, k in QUESTIONS:
        code, out, err = docai("search", question, "--json", "-k", str(k), "--docs", docs)
        assert code == 0, err
        expected.append(json.loads(out))
    assert any(result["results"] for result in expected)
    before = snapshot(tmp_path)

    async def use(session: ClientSession) -> Any:
        tools = (await session.list_tools()).tools
        searched = [await session.call_tool("search_docs", {"query": q, "k": k})
                    for q, k in QUESTIONS]
        listed = await session.call_tool("list_sources", {})
        empty = await session.call_tool("search_docs", {"query": "  "})
        too_many = await session.call_tool("search_docs", {"query": "port", "k": 50})
        return tools, searched, listed, empty, too_many

    tools, searched, listed, empty, too_many = with_server(tmp_path, docs, use)

    assert sorted(tool.name for tool in tools) == ["list_sources", "search_docs"]
    for tool in tools:
        assert tool.annotations is not None and tool.annotations.read_only_hint
    for tool in tools:  # each description reads as written, no template braces left over
        assert "{{" not in (tool.description or "") and "}}" not in (tool.description or "")
    search_tool = next(tool for tool in tools if tool.name == "search_docs")
    assert search_tool.input_schema["required"] == ["query"]
    assert search_tool.input_schema["properties"]["k"]["default"] == 3
    for result, wanted in zip(searched, expected, strict=True):
        assert not result.is_error
        assert result.structured_content == wanted  # the same passages, in the same order
        assert json.loads(result.content[0].text) == wanted
    port = searched[0].structured_content["results"][0]
    assert (port["source"], port["heading"]) == ("deploy.md", "Deploy > Ports")
    assert "The default port is 8000" in port["text"]
    assert listed.structured_content == {"docs": str(docs.resolve()), "sources": [
        {"source": "config.md", "chunks": 2,
         "headings": ["Configuração > Janela de contexto", "Configuração > Modelo"]},
        {"source": "deploy.md", "chunks": 2, "headings": ["Deploy > Ports", "Deploy > Workers"]},
        {"source": "guide/install.md", "chunks": 2,
         "headings": ["Instalação > Com pip", "Instalação > Com pipx"]},
    ]}
    assert empty.is_error and "query vazia" in empty.content[0].text
    assert too_many.is_error and "k deve ser de 1 a 20, recebi 50" in too_many.content[0].text
    assert snapshot(tmp_path) == {**before, **{  # nothing written but the server's own stderr
        path: stat for path, stat in snapshot(tmp_path).items()
        if path.endswith("server-stderr.txt")}}
    assert not (tmp_path / "data" / "docai" / "log.sqlite3").exists()
    stderr = (tmp_path / "server-stderr.txt").read_text(encoding="utf-8")
    assert "docai mcp: 6 trecho(s) de 3 arquivo(s)" in stderr
    assert "Traceback" not in stderr


def test_without_the_sdk_docai_mcp_says_how_to_install_it(
    docai: InProcessDocai, sample_docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "docai.mcp_server", raising=False)
    for name in [name for name in sys.modules if name.split(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the SDK were not installed
    monkeypatch.setitem(sys.modules, "mcp", None)
    code, out, err = docai("mcp", "--docs", sample_docs)
    assert (code, out) == (2, ""), err
    assert err == "docai: erro: docai mcp precisa do SDK do MCP; instale-o com: " \
        "pip install 'docai[mcp]' (num clone do código do docai: pip install -e '.[mcp]' " \
        "na pasta do clone, ou make install)\n"
    assert os.environ.get("DOCAI_DEBUG") is None



@pytest.mark.timeout(90)
def test_a_file_name_that_is_not_utf8_breaks_neither_listing_nor_search(tmp_path: Path) -> None:
    """One file named in Latin-1 must not break `list_sources`, nor `search_docs` when that
    file is a hit: the name reaches the agent with U+FFFD for the stray byte."""
    docs = write_docs(tmp_path / "docs")
    with open(os.fsencode(docs) + b"/caf\xe9.md", "wb") as file:
        file.write(b"# Zebrafoo\n\nO zebrafoo se configura com quuxbar.\n")

    async def use(session: ClientSession) -> Any:
        listed = await session.call_tool("list_sources", {})
        found = await session.call_tool("search_docs", {"query": "zebrafoo quuxbar"})
        return listed, found

    listed, found = with_server(tmp_path, docs, use)
    assert not listed.is_error, listed.content
    names = [entry["source"] for entry in listed.structured_content["sources"]]
    assert "caf\ufffd.md" in names
    assert not found.is_error, found.content
    assert found.structured_content["results"][0]["source"] == "caf\ufffd.md"
    stderr = (tmp_path / "server-stderr.txt").read_text(encoding="utf-8")
    assert "Traceback" not in stderr


@pytest.mark.timeout(90)
def test_a_query_holding_a_lone_surrogate_gets_a_reply(tmp_path: Path) -> None:
    """JSON may escape a lone surrogate (`\\ud800`), which no SDK client sends but any
    other client may: the server answers it (here raw JSON-RPC over the process's stdio)
    instead of leaving the client waiting for its own time-out."""
    docs = write_docs(tmp_path / "docs")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search_docs", "arguments": {"query": "PLACEHOLDER"}}},
    ]
    lines = [json.dumps(request) for request in requests]
    lines[-1] = lines[-1].replace("PLACEHOLDER", "modelo \\ud800")
    server = subprocess.Popen(
        [DOCAI, "mcp", "--docs", str(docs)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=docai_env(tmp_path, NO_SERVER),
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("\n".join(lines).encode() + b"\n")
    server.stdin.flush()  # and left open: an agent stays connected while it waits
    answer = None
    deadline = time.monotonic() + 60
    while answer is None and time.monotonic() < deadline:
        ready, _, _ = select.select([server.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = server.stdout.readline()
        if not line:
            break
        reply = json.loads(line)
        answer = reply if reply.get("id") == 2 else None
    server.stdin.close()
    server.wait(timeout=30)
    err = server.stderr.read() if server.stderr is not None else b""
    assert answer is not None, err.decode()[-2000:]
    assert "result" in answer or "error" in answer
    assert b"Traceback" not in err
