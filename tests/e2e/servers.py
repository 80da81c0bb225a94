"""Model servers as subprocesses that cannot outlive the test session.

Each server runs in its own process group (so killing the group stops everything it
started), is waited for until it answers HTTP, and is stopped when its `with` block ends,
whether the tests passed, failed or timed out. On Linux every child also gets SIGTERM if
pytest itself dies (even by SIGKILL), so no model is left eating the shared CPU.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0
PR_SET_PDEATHSIG = 1
MODEL_NAME = "smollm2"  # what both servers call the model


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A started model server: where it listens and where its log goes."""

    url: str
    port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def die_with_parent() -> None:
    """Runs in the child before exec: SIGTERM it when pytest dies, even by SIGKILL."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server's whole process group, then kill it if it lingers."""
    if process.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(log: Path, lines: int = 40) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


@contextmanager
def serving(command: Sequence[str], port: int, ready_path: str,
            log: Path) -> Iterator[RunningServer]:
    """Start `command` (listening on `port`), wait until GET `ready_path` answers 200, and
    stop it on exit. Fails the test, with the server's log, if it dies or never answers."""
    url = f"http://127.0.0.1:{port}"
    ready_url = url + ready_path
    started = time.monotonic()
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   preexec_fn=die_with_parent)
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"{command[2]} exited with {process.returncode} before answering; "
                            f"log {log}:\n{_tail(log)}")
            if time.monotonic() - started > START_TIMEOUT_S:
                pytest.fail(f"{command[2]} did not answer {ready_url} within "
                            f"{START_TIMEOUT_S:.0f} s; log {log}:\n{_tail(log)}")
            try:
                if httpx.get(ready_url, timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        yield RunningServer(url=url, port=port, log=log)
    finally:
        _stop(process)
