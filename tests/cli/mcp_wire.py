"""A raw JSON-RPC client for `docai mcp` over the real process's stdio: requests written
as an agent writes them (several at once when a test needs calls in flight together), each
reply found by its id, waiting for an event (a reply, the process's end), never a clock."""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.docai_cli import DOCAI, docai_env

NO_SERVER = "http://127.0.0.1:9"  # nothing listens: the server must never call a model
# The server's address space, capped: a parser bomb that escapes its limit costs this
# machine at most this (and shows as a failed call), not gigabytes.
CAP_BYTES = 3 << 30
# Runs a command and, once it has ended, prints the peak resident memory of it and of every
# process it started and waited for (the kernel's account of waited-for children).
MEASURED = """
import resource, subprocess, sys
status = subprocess.run(sys.argv[1:]).returncode
sys.stderr.write("\\npeak_kb=%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(status)
"""
# A reply that has not come by then never will: a wedged server, not a slow machine.
REPLY_TIMEOUT_S = 240.0


class Server:
    """`docai mcp --docs DOCS` started, initialised, and driven line by line."""

    def __init__(self, home: Path, docs: Path, *extra: str, measured: bool = False) -> None:
        """`measured`: run through MEASURED, so that `peak_kb()` can be read after `stop()`
        (`process` is then that wrapper, not docai)."""
        self.stderr_path = home / "server-stderr.txt"
        self._stderr = self.stderr_path.open("wb")
        wrapper = [sys.executable, "-c", MEASURED] if measured else []
        self.process = subprocess.Popen(
            [*wrapper, DOCAI, "mcp", "--docs", str(docs), *extra], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, env=docai_env(home, NO_SERVER),
            preexec_fn=cap_memory)
        self._next_id = 100
        self._replies: dict[int, dict[str, Any]] = {}
        self._pending = b""
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        self.reply(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, *requests: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        self.process.stdin.flush()

    def call(self, tool: str, **arguments: Any) -> int:
        """Send one tools/call; its id (the reply is read with `reply`)."""
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
        return self._next_id

    def ask(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """One call and its reply's `result`."""
        reply = self.reply(self.call(tool, **arguments))
        assert "result" in reply, reply
        return reply["result"]

    def reply(self, wanted: int, timeout: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while wanted not in self._replies:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise AssertionError(f"no reply to {wanted} in {timeout} s: {self.stderr()}")
            data = os.read(fd, 1 << 20)
            if not data:
                raise AssertionError(f"the server ended: {self.stderr()}")
            self._pending += data
            *lines, self._pending = self._pending.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "id" in message:
                    self._replies[message["id"]] = message
        return self._replies.pop(wanted)

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def peak_kb(self) -> int:
        """The peak resident memory of docai and its processes (a `measured` server, after
        `stop`)."""
        said = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        return int(said.rsplit("peak_kb=", 1)[1].split()[0])

    def stop(self) -> None:
        """End the session as an agent does (its stdin closed), then by signal if need be."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()


def cap_memory() -> None:
    """In the child before it runs docai: the address-space cap (CAP_BYTES)."""
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def text_of(result: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in result["content"])


def structured(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), text_of(result)
    return result["structuredContent"]


def wait_until(condition: Any, timeout: float = REPLY_TIMEOUT_S, every: float = 0.05) -> bool:
    """Poll `condition()` until it holds (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return bool(condition())
