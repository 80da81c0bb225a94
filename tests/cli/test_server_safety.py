"""The model server as a user points docai at it: a password in its address is used but
never shown, a server speaking another protocol is named as such at once, and
`--follow-links` reaches the settings. Through `cli.main` against real HTTP servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docai.cli.options.parser import build_parser, settings_from_args
from tests.support.docai_cli import InProcessDocai, Result
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

PASSWORD = "s3cr3t-Pw"


def with_password(url: str, password: str = PASSWORD) -> str:
    return url.replace("http://", f"http://docai:{password}@")


@pytest.fixture
def ask(docai: InProcessDocai, tmp_path: Path):
    def run(url: str, *args: str, stdin: str | None = None) -> Result:
        docs = write_docs(tmp_path / "docs")
        docai.use_env(tmp_path, url)
        if stdin is not None:  # the REPL, questions piped in
            return docai("--docs", docs, *args, stdin=stdin)
        return docai("ask", QUESTION, "--docs", docs, *args)

    return run


def test_a_password_in_ollama_host_is_sent_and_the_answer_comes(ask) -> None:
    with FakeOllama(reply=REPLY, basic_auth=("docai", PASSWORD)) as server:
        done = ask(with_password(server.url))
    assert done.returncode == 0, done.stderr
    assert REPLY in done.stdout


def test_a_refused_password_is_reported_without_showing_it(ask) -> None:
    with FakeOllama(reply=REPLY, basic_auth=("docai", "outra")) as server:
        done = ask(with_password(server.url))
        port = server.port
    assert done.returncode == 1
    assert f"http://docai:***@127.0.0.1:{port}" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr


def test_the_repl_never_shows_the_password_either(ask) -> None:
    with FakeOllama(reply=REPLY, basic_auth=("docai", "outra")) as server:
        done = ask(with_password(server.url), stdin=f"{QUESTION}\nsair\n")
    assert "docai pronto" in done.stderr  # the banner, on stderr when questions are piped
    assert "docai:***@" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr


@pytest.mark.parametrize(
    "options",
    [
        ["--ollama-url", f"http://docai:{PASSWORD}@127.0.0.1:99999"],
        ["--backend", "openai", "--base-url", f"http://docai:{PASSWORD}@127.0.0.1:99999/v1"],
    ],
    ids=["ollama-url", "base-url"],
)
def test_a_malformed_address_with_a_password_is_named_without_it(ask, options) -> None:
    done = ask("http://127.0.0.1:9", *options)
    assert done.returncode == 2
    assert "endereço inválido" in done.stderr and "docai:***@127.0.0.1:99999" in done.stderr
    assert PASSWORD not in done.stderr


def test_a_server_speaking_another_protocol_is_named_at_once_not_retried(ask) -> None:
    # Default retry policy: a retry would be seen as a second request.
    with FakeOllama(raw_lines=[json.dumps({"foo": 1})]) as server:
        done = ask(server.url)
        requests = len(server.chat_requests)
        url = server.url
    assert done.returncode == 1
    assert f"o servidor em {url} não está falando o protocolo do Ollama" in done.stderr
    assert "caiu" not in done.stderr
    assert requests == 1
    assert "[1] guide/install.md:3 > Instalação > Com pip" in done.stdout  # passages still shown


@pytest.mark.parametrize(
    "argv",
    [["--follow-links", "search", "pip"], ["search", "pip", "--follow-links"],
     ["index", "--follow-links"], ["--follow-links"]],
)
def test_follow_links_is_an_option_everywhere(argv: list[str]) -> None:
    settings = settings_from_args(build_parser().parse_args(argv), {})
    assert settings.follow_links is True


def test_links_out_of_the_docs_folder_are_not_followed_by_default() -> None:
    settings = settings_from_args(build_parser().parse_args(["search", "pip"]), {})
    assert settings.follow_links is False
