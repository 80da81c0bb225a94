"""Fixtures shared across the suite. Shared data and helpers live in tests/support/.

docai itself is imported inside the fixtures, not here: this file is loaded for every test,
and a module that fails to import should fail the tests that use it, not the collection.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai
from tests.support.fake_ollama import FakeOllama, numbered_replies
from tests.support.sample_docs import REPLY, write_docs

# Settings a developer's or CI's environment may hold, which would change what docai does.
USER_VARIABLES = (
    "DOCAI_DOCS", "DOCAI_MODEL", "DOCAI_CACHE_DIR", "DOCAI_DEBUG", "OLLAMA_HOST",
    "OPENAI_API_KEY", "NO_COLOR",
)
# Dense ranking is on by default and embeds with a real model (seconds per question on a
# CPU): the suite runs with it off, and the tests of dense turn it on (`dense_on`).
DENSE_VARIABLE = "DOCAI_DENSE"


@pytest.fixture(autouse=True)
def no_user_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test runs as a user with no config file, no docai variables and empty user
    folders, whatever the machine running the suite has set; a test sets what it needs."""
    home = tmp_path_factory.mktemp("user")
    for variable in USER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, folder in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"),
                             ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(variable, str(home / folder))
    monkeypatch.setenv(DENSE_VARIABLE, "off")


@pytest.fixture
def dense_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """docai as a user runs it: dense ranking on (its default), with the bundled model."""
    monkeypatch.delenv(DENSE_VARIABLE, raising=False)


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


@pytest.fixture
def numbered_ollama() -> Iterator[FakeOllama]:
    """A fake Ollama whose every answer is new ("Resposta 1.", "Resposta 2.", …), so a
    replayed answer or a request's earlier exchanges show which answer was which."""
    with FakeOllama(reply=numbered_replies(), think_shape="none") as server:
        yield server
