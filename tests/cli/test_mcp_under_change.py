"""`docai mcp` while its folder changes under it, through the real process and raw
JSON-RPC on its stdio (`mcp_wire`): many files changed at once (as a `git checkout`
does), calls in flight together, hostile files and rules added mid-session, a file dated
in the future, a huge question. Each call must get its reply, and no worker outlive the
server."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.cli.mcp_wire import Server, structured, text_of, wait_until
from tests.loading.bomb_pdfs import fan_out_pdf
from tests.support.processes import alive, descendants
from tests.support.sample_docs import write_docs

# Replies are waited for up to `mcp_wire.REPLY_TIMEOUT_S` each: a wedged server, not a
# slow machine, is what fails a test.
pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="finds the workers through /proc"),
              pytest.mark.timeout(900)]
LONG_AGO = 1_700_000_000  # an mtime that leaves a file settled (`index.freshness`)


def page(number: int, paragraphs: int = 3) -> str:
    body = "\n\n".join(f"O servidor {number} guarda o cache {part} no disco; configure "
                       f"`opcao_{number}_{part}` em `/etc/servico/{part}.conf`."
                       for part in range(paragraphs))
    return f"# Página {number}\n\nO termo marcador{number:03d} está aqui.\n\n{body}\n"


def folder_of(tmp_path: Path, count: int, paragraphs: int = 3) -> Path:
    docs = write_docs(tmp_path / "docs", {f"pagina{n:03d}.md": page(n, paragraphs)
                                          for n in range(count)})
    for path in docs.iterdir():
        os.utime(path, (LONG_AGO, LONG_AGO))
    return docs


def settled_write(path: Path, text: str, *, append: bool = False) -> None:
    """Write (or append) and date the file in the past, so the follower reads it at once:
    the test then waits for the reply, not for the folder to be quiet."""
    with path.open("a" if append else "w", encoding="utf-8") as file:
        file.write(text)
    os.utime(path, (LONG_AGO + 1, LONG_AGO + 1))


def sources(result: dict) -> list[str]:
    return [hit["source"] for hit in structured(result)["results"]]


def test_a_hundred_changed_files_and_twenty_calls_in_flight_get_replies_from_one_rebuild(
    tmp_path: Path,
) -> None:
    docs = folder_of(tmp_path, 200)
    server = Server(tmp_path, docs)
    try:
        assert sources(server.ask("search_docs", query="marcador099", k=1)) == ["pagina099.md"]
        for number in range(100):  # a `git checkout` rewrites them all at once
            settled_write(docs / f"pagina{number:03d}.md",
                          f"\nA palavra novidade{number:03d} chegou.\n", append=True)
        calls = [server.call("search_docs", query=f"novidade{n:03d}", k=1) for n in range(20)]
        replies = [server.reply(call) for call in calls]
        for number, reply in enumerate(replies):
            assert sources(reply["result"]) == [f"pagina{number:03d}.md"]
        said = server.stderr()
        assert said.count("arquivo(s) atualizado(s)") == 1, said  # one rebuild for all
        assert "Traceback" not in said
    finally:
        server.stop()


def test_the_workers_of_a_rebuild_end_with_the_server(tmp_path: Path) -> None:
    docs = folder_of(tmp_path, 120, paragraphs=300)  # enough text for a rebuild of seconds
    server = Server(tmp_path, docs)
    try:
        server.ask("list_sources")
        for number in range(120):
            settled_write(docs / f"pagina{number:03d}.md", "\nMais uma linha.\n", append=True)
        server.call("search_docs", query="marcador001")
        pid = server.process.pid
        assert wait_until(lambda: descendants(pid)), "no worker was started"
        workers = descendants(pid)
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=60)
        assert wait_until(lambda: not any(alive(worker) for worker in workers), 60), \
            [worker for worker in workers if alive(worker)]
    finally:
        server.stop()


def test_an_invalid_ignore_rule_added_mid_session_breaks_no_call(tmp_path: Path) -> None:
    docs = folder_of(tmp_path, 3)
    server = Server(tmp_path, docs)
    try:
        server.ask("list_sources")
        settled_write(docs / ".gitignore", "[z-a]\n\\\n!\na\\\n")
        settled_write(docs / "novo.md", "# Novo\n\nO termo zebrafoo chegou.\n")
        assert sources(server.ask("search_docs", query="zebrafoo", k=1)) == ["novo.md"]
        listed = structured(server.ask("list_sources"))
        assert "novo.md" in [entry["source"] for entry in listed["sources"]]
        assert "Traceback" not in server.stderr()
    finally:
        server.stop()


def test_a_file_dated_in_the_future_does_not_stop_the_follower(tmp_path: Path) -> None:
    docs = folder_of(tmp_path, 3)
    server = Server(tmp_path, docs)
    try:
        server.ask("list_sources")
        ahead = time.time() + 365 * 24 * 3600
        (docs / "novo.md").write_text("# Novo\n\nO termo zebrafoo chegou.\n", encoding="utf-8")
        os.utime(docs / "novo.md", (ahead, ahead))
        settled_write(docs / "outro.md", "# Outro\n\nO termo quuxbar chegou.\n")

        def both_found() -> bool:
            return (sources(server.ask("search_docs", query="zebrafoo", k=1)) == ["novo.md"]
                    and sources(server.ask("search_docs", query="quuxbar", k=1)) == ["outro.md"])

        assert wait_until(both_found, timeout=120, every=0.2), server.stderr()
    finally:
        server.stop()


def test_a_huge_question_gets_a_clear_error_and_the_server_goes_on(tmp_path: Path) -> None:
    docs = folder_of(tmp_path, 3)
    server = Server(tmp_path, docs)
    try:
        huge = server.ask("search_docs", query="servidor cache " * 70_000)  # about 1 MB
        assert huge.get("isError"), huge
        assert "caracteres; o limite é" in text_of(huge)
        assert sources(server.ask("search_docs", query="marcador001", k=1)) == ["pagina001.md"]
    finally:
        server.stop()


def test_parser_bombs_added_while_serving_are_skipped_within_the_time_limit(
    tmp_path: Path,
) -> None:
    """SIGALRM reaches only a main thread, and the SDK runs tools in worker threads: the
    parse must happen where its time limit holds; and a PDF whose forms fan out to
    gigabytes must not take the server down with it, nor take a gigabyte."""
    docs = folder_of(tmp_path, 3)
    server = Server(tmp_path, docs, measured=True)
    try:
        server.ask("list_sources")
        settled_write(docs / "colchetes.md", "[" * 900_000)  # far past its limit on any machine
        settled_write(docs / "jsx.mdx", "<A" + "a" * 50_000 + "\n")
        (docs / "bomba.pdf").write_bytes(fan_out_pdf())
        os.utime(docs / "bomba.pdf", (LONG_AGO, LONG_AGO))
        settled_write(docs / "novo.md", "# Novo\n\nO termo zebrafoo chegou.\n")
        listed = structured(server.ask("list_sources"))
        names = [entry["source"] for entry in listed["sources"]]
        assert "novo.md" in names
        assert not {"colchetes.md", "jsx.mdx", "bomba.pdf"} & set(names)
        assert sources(server.ask("search_docs", query="zebrafoo", k=1)) == ["novo.md"]
    finally:
        server.stop()
    assert server.peak_kb() < 1 << 20, server.peak_kb()  # under 1 GiB, every process


def test_a_request_line_of_300_mb_gets_an_error_reply_without_being_held(
    tmp_path: Path,
) -> None:
    """The request is skipped as it is read, 4 MB at a time: the agent gets a reply naming
    the limit (with its request's id), the server goes on, and its memory stays far below
    the line's size (read whole, a 200 MB line once cost 1.2 GB)."""
    docs = folder_of(tmp_path, 3)
    server = Server(tmp_path, docs, measured=True)
    try:
        assert server.process.stdin is not None
        start = b'{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": ' \
                b'"search_docs", "arguments": {"query": "'
        server.process.stdin.write(start)
        block = b"cache " * (1 << 20)
        for _ in range(50):  # 300 MiB
            server.process.stdin.write(block)
        server.process.stdin.write(b'"}}}\n')
        server.process.stdin.flush()
        refused = server.reply(77)
        assert "300 MB ignorado" in refused["error"]["data"], refused
        assert "o limite é 4 MB" in refused["error"]["data"]
        assert sources(server.ask("search_docs", query="marcador001", k=1)) == ["pagina001.md"]
    finally:
        server.stop()
    assert server.peak_kb() < 1 << 20, server.peak_kb()  # under 1 GiB, every process
