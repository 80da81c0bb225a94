"""Fixtures shared across the suite. Shared data and helpers live in tests/support/.

docai itself is imported inside the fixtures, not here: this file is loaded for every test,
and a module that fails to import should fail the tests that use it, not the collection.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import REPLY, write_docs


@pytest.fixture
def sample_docs(tmp_path: Path) -> Path:
    """The two-file folder of tests.support.sample_docs, written under tmp_path/docs."""
    return write_docs(tmp_path / "docs")


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A fake Ollama on a free local port that answers every question with REPLY."""
    with FakeOllama(reply=REPLY) as server:
        yield server


@pytest.fixture
def docai(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> InProcessDocai:
    """`docai ARGS` through `cli.main` in this process; see tests.support.docai_cli."""
    return InProcessDocai(capfd, monkeypatch)


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product's retry schedule a hundred times faster: the same attempts and the same
    doubling, in milliseconds instead of the seconds a user waits for a server that is down."""
    from docai.llm.http import RetryPolicy

    real_delay = RetryPolicy.delay
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, n: real_delay(policy, n) / 100)
