"""A server that answers in another protocol fails at once, saying so; a password in a
server's URL is sent to it but never shown. Against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json

import httpx
import pytest

from docai.errors import SettingsError
from docai.llm.errors import LLMError, ProtocolMismatch, ServerError, ServerUnreachable
from docai.llm.events import Message, TextDelta
from docai.llm.ollama import OllamaClient
from docai.llm.openai import OpenAIClient
from docai.settings import Settings, normalise_ollama_url, redact_url
from tests.support.fake_ollama import FakeOllama
from tests.support.fake_openai import FakeOpenAI
from tests.support.network import closed_port_url

QUESTION = [Message("user", "Como instalo?")]


def chat(client: OllamaClient | OpenAIClient) -> list[object]:
    with client:
        return list(client.stream_chat(QUESTION, think=None, num_ctx=2048, temperature=0.2))


@pytest.mark.parametrize(
    "lines",
    [
        [json.dumps({"foo": 1})],
        ["[1, 2]"],
        [json.dumps({"message": "oi", "done": False}), json.dumps({"message": "tchau"})],
        ['"só um texto"'],
        ["<html>proxy error</html>"],
    ],
    ids=["other-object", "array", "message-is-a-string", "json-string", "not-json"],
)
def test_an_ollama_reply_of_the_wrong_shape_fails_at_once_naming_the_protocol(
    lines: list[str],
) -> None:
    with FakeOllama(raw_lines=lines) as server:
        # The product's retry policy (three retries), sped up: none of them may be used.
        client = OllamaClient(server.url, "deepseek-r1", backoff=0.01)
        with pytest.raises(ProtocolMismatch) as caught:
            chat(client)
        assert len(server.chat_requests) == 1, "a wrong protocol is not retried"
        url = server.url
    message = str(caught.value)
    assert f"o servidor em {url} não está falando o protocolo do Ollama" in message
    assert "--ollama-url" in message
    assert "caiu" not in message, "not reported as a dropped connection"


@pytest.mark.parametrize(
    "lines",
    [
        ['data: {"foo": 1}', "", "data: [DONE]", ""],
        ['{"object": "list", "data": []}'],
        ["data: [1, 2]", ""],
        ["data: not json", ""],
    ],
    ids=["other-object", "not-sse", "array", "not-json"],
)
def test_an_openai_reply_of_the_wrong_shape_fails_at_once_naming_the_protocol(
    lines: list[str],
) -> None:
    with FakeOpenAI(raw_lines=lines) as server:
        client = OpenAIClient(server.url, "deepseek-r1", backoff=0.01)
        with pytest.raises(ProtocolMismatch) as caught:
            chat(client)
        assert len(server.chat_requests) == 1
        url = server.url
    message = str(caught.value)
    assert f"o servidor em {url}/v1 não está falando o protocolo da API da OpenAI" in message
    assert "--base-url" in message


def test_one_odd_chunk_in_a_real_ollama_stream_is_still_ignored() -> None:
    lines = [
        json.dumps({"message": {"content": "Olá"}, "done": False}),
        json.dumps({"foo": 1}),
        json.dumps({"message": {"content": "!"}, "done": True}),
    ]
    with FakeOllama(raw_lines=lines) as server:
        events = chat(OllamaClient(server.url, "deepseek-r1"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Olá!"


# --- a password in the server's URL ------------------------------------------------------------
def with_password(url: str, password: str = "s3cr3t") -> str:
    return url.replace("http://", f"http://docai:{password}@")


def test_redact_url_hides_only_the_password() -> None:
    assert redact_url("http://u:pass@host:11434/v1") == "http://u:***@host:11434/v1"
    assert redact_url("https://u:p@ss/w0rd@host") == "https://u:***@host"
    assert redact_url("http://u@host") == "http://u@host"
    assert redact_url("http://host:11434") == "http://host:11434"
    assert normalise_ollama_url("docai:s3cr3t@10.0.0.5") == "http://docai:s3cr3t@10.0.0.5:11434"


def test_the_password_is_sent_to_the_server_as_basic_authorisation() -> None:
    with FakeOllama(reply="Certo.", basic_auth=("docai", "s3cr3t")) as server:
        events = chat(OllamaClient(with_password(server.url), "deepseek-r1"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Certo."


def test_errors_name_the_server_without_its_password() -> None:
    with FakeOllama(basic_auth=("docai", "s3cr3t")) as server:
        client = OllamaClient(with_password(server.url, "errada"), "deepseek-r1")
        with pytest.raises(ServerError) as refused:
            chat(client)
        port = server.port
    assert f"http://docai:***@127.0.0.1:{port}" in str(refused.value)
    assert "errada" not in str(refused.value)

    down = with_password(closed_port_url())
    with pytest.raises(ServerUnreachable) as unreachable:
        chat(OllamaClient(down, "deepseek-r1", retries=0))
    assert redact_url(down) in str(unreachable.value)
    assert "s3cr3t" not in str(unreachable.value)

    odd = FakeOpenAI(raw_lines=['{"foo": 1}'])
    with odd as server, pytest.raises(ProtocolMismatch) as mismatch:
        chat(OpenAIClient(with_password(server.url), "deepseek-r1"))
    assert "docai:***@" in str(mismatch.value) and "s3cr3t" not in str(mismatch.value)


@pytest.mark.parametrize("option", ["ollama_url", "base_url"])
def test_a_malformed_url_with_a_password_is_named_without_it(option: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings(**{option: "http://docai:s3cr3t@127.0.0.1:99999"})  # type: ignore[arg-type]
    assert "docai:***@127.0.0.1:99999" in str(caught.value)
    assert "s3cr3t" not in str(caught.value)


def test_a_body_that_cannot_be_decompressed_is_a_docai_error_not_a_crash() -> None:
    """A proxy that labels a plain body gzip: httpx cannot decode it."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=b"not gzip")

    client = OllamaClient("http://127.0.0.1:9", "deepseek-r1", retries=0,
                          transport=httpx.MockTransport(handler))
    with client:
        with pytest.raises(LLMError):
            list(client.stream_chat([Message("user", "oi")], think=None, num_ctx=4096,
                                    temperature=0.2))
        with pytest.raises(LLMError):
            client.list_models()
