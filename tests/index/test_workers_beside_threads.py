"""Parsing in worker processes while another thread of docai holds a lock (the REPL's
background embedding pass or folder follower, mid-step): a worker forked at that instant
would inherit the lock held for ever and never finish; workers started fresh do not."""

from __future__ import annotations

import os
import threading

import pytest

from docai.cpus import usable_cpus
from docai.index.build import MIN_FILES_FOR_WORKERS, parse_all

# Held by a thread of the test's process for the whole parse. A worker's copy of it is the
# parent's state at the worker's start: locked for ever if forked, fresh if spawned.
SHARED_LOCK = threading.Lock()
PARENT = "DOCAI_TEST_PARENT_PID"


def parse_needing_the_lock(task: tuple[str, str | None]) -> str:
    """Takes the lock in a worker (in the parent, the thread holding it would block it)."""
    if os.getpid() != int(os.environ[PARENT]):
        with SHARED_LOCK:
            pass
    return task[0]


@pytest.mark.timeout(600)
@pytest.mark.skipif(usable_cpus() < 2, reason="one CPU parses in the process, no workers")
def test_workers_started_while_a_thread_holds_a_lock_finish(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PARENT, str(os.getpid()))
    tasks = [(f"page{n}.md", None) for n in range(MIN_FILES_FOR_WORKERS * 4)]
    release = threading.Event()
    held = threading.Event()

    def hold() -> None:
        with SHARED_LOCK:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    held.wait()
    try:
        assert parse_all(parse_needing_the_lock, tasks, None) == [name for name, _ in tasks]
    finally:
        release.set()
        holder.join()
