"""OllamaClient against a real HTTP server speaking Ollama's protocol (tests/support)."""

from __future__ import annotations

import http.server
import json
import math
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from docai.errors import SettingsError
from docai.llm.backends import make_backend
from docai.llm.errors import (
    ChatUnsupported,
    MalformedResponse,
    ModelNotFound,
    ResponseTimeout,
    ServerBusy,
    ServerUnreachable,
    StreamError,
    StreamInterrupted,
    ThinkingUnsupported,
    UnsupportedServer,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.ollama import OllamaClient
from docai.llm.openai import OpenAIClient
from docai.settings import Settings, normalise_ollama_url
from tests.support.fake_ollama import FakeOllama, hashed_embedding
from tests.support.network import closed_port_url

QUESTION = [Message("system", "Responda só com base nas fontes."), Message("user", "Como instalo?")]
REPLY = "Instale com `pip install docai` e rode `docai`."


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY, thinking="O usuário quer instalar.") as server:
        yield server


def client_for(url: str, model: str = "deepseek-r1", **options: float) -> OllamaClient:
    """A client with test-sized timeouts and backoff (the defaults suit a real cold model)."""
    settings: dict[str, float] = {"backoff": 0.01, "read_timeout": 5.0, "connect_timeout": 2.0}
    return OllamaClient(url, model, **(settings | options))  # type: ignore[arg-type]


def chat(client: OllamaClient, think: bool | None = True, received: list[Event] | None = None):
    """Collect the stream; `received` keeps what arrived before an error was raised."""
    events = received if received is not None else []
    for event in client.stream_chat(QUESTION, think=think, num_ctx=8192, temperature=0.2):
        events.append(event)
    return events


def ask(
    url: str,
    *,
    think: bool | None = True,
    received: list[Event] | None = None,
    model: str = "deepseek-r1",
    **options: float,
) -> list[Event]:
    """One question with a fresh client, as the CLI would do it."""
    with client_for(url, model, **options) as client:
        return chat(client, think, received)


def split(events: list[Event]) -> tuple[str, str]:
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return thinking, text


# --- streaming ---------------------------------------------------------------------------------
def test_streams_reasoning_then_answer_then_done_with_metrics(fake: FakeOllama) -> None:
    with client_for(fake.url) as client:
        events = chat(client)
    assert split(events) == ("O usuário quer instalar.", REPLY)
    assert len([e for e in events if isinstance(e, TextDelta)]) > 3, "streamed, not one blob"
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert all(not isinstance(e, ThinkingDelta) for e in events[first_text:])
    done = events[-1]
    assert isinstance(done, Done) and done.done_reason == "stop"
    assert done.eval_count and done.prompt_eval_count
    assert done.eval_duration_ns and done.total_duration_ns


def test_sends_num_ctx_temperature_and_think_explicitly(fake: FakeOllama) -> None:
    with client_for(fake.url) as client:
        chat(client, think=True)
        chat(client, think=False)
        chat(client, think=None)
    with_think, without_think, server_default = fake.chat_requests
    assert with_think["options"] == {"num_ctx": 8192, "temperature": 0.2}
    assert with_think["stream"] is True and with_think["model"] == "deepseek-r1"
    assert with_think["messages"] == [
        {"role": "system", "content": "Responda só com base nas fontes."},
        {"role": "user", "content": "Como instalo?"},
    ]
    assert with_think["think"] is True and without_think["think"] is False
    assert "think" not in server_default, "None must leave the choice to the server"


def test_think_false_gets_no_reasoning(fake: FakeOllama) -> None:
    with client_for(fake.url) as client:
        assert split(chat(client, think=False)) == ("", REPLY)


def test_inline_think_tags_split_across_chunks_become_reasoning() -> None:
    chunks = ["<thi", "nk>\nAcho que", " é pip.</thi", "nk>\n", "\nUse ", "pip."]
    with FakeOllama(think_shape="inline", chunks=chunks) as old_server:
        assert split(ask(old_server.url, think=None)) == ("Acho que é pip.", "Use pip.")


def test_inline_think_from_an_old_server_chunked_by_characters() -> None:
    with FakeOllama(reply=REPLY, thinking="Pensando.", think_shape="inline", chunk_size=3) as old:
        thinking, text = split(ask(old.url, think=None))
    assert (thinking.strip(), text) == ("Pensando.", REPLY)


def test_text_carried_by_the_final_done_object_is_kept() -> None:
    lines = [
        json.dumps(
            {
                "model": "deepseek-r1",
                "message": {"role": "assistant", "content": "Olá"},
                "done": False,
            }
        ),
        json.dumps(
            {
                "model": "deepseek-r1",
                "message": {"role": "assistant", "content": ", fim."},
                "done": True,
                "done_reason": "length",
            }
        ),
    ]
    with FakeOllama(raw_lines=lines) as server:
        events = ask(server.url)
    assert split(events) == ("", "Olá, fim.")
    assert events[-1] == Done(done_reason="length")


# --- errors inside a 200 stream ----------------------------------------------------------------
def test_error_line_mid_stream_raises_with_the_server_text_after_partial_output() -> None:
    with FakeOllama(
        reply=REPLY,
        think_shape="none",
        error_after=2,
        error_message="model runner has unexpectedly stopped",
    ) as server:
        received: list[Event] = []
        with pytest.raises(StreamError) as caught:
            ask(server.url, received=received)
    assert "model runner has unexpectedly stopped" in str(caught.value)
    assert caught.value.server_message == "model runner has unexpectedly stopped"
    assert split(received)[1] == "Instale com "
    assert len(server.chat_requests) == 1


def test_malformed_line_raises_a_specific_error() -> None:
    with (
        FakeOllama(raw_lines=["<html>proxy error</html>"]) as server,
        pytest.raises(MalformedResponse) as caught,
    ):
        ask(server.url)
    assert "proxy error" in str(caught.value)


def test_fields_of_the_wrong_type_are_ignored_not_a_crash() -> None:
    lines = [
        json.dumps({"message": {"content": "Olá"}, "done": False}),
        json.dumps({"message": 5, "done": False}),
        json.dumps({"message": {"content": ["x"], "thinking": 3}, "done": False}),
        json.dumps({"message": None, "done": True, "done_reason": 7, "prompt_eval_count": "9",
                    "eval_count": True}),
    ]
    with FakeOllama(raw_lines=lines) as server:
        events = ask(server.url)
    assert split(events) == ("", "Olá")
    assert events[-1] == Done()


def test_a_stream_of_junk_objects_ends_as_interrupted_not_a_crash() -> None:
    with (
        FakeOllama(raw_lines=[json.dumps({"message": "oi"})]) as server,
        pytest.raises(StreamInterrupted) as caught,
    ):
        ask(server.url, retries=0)
    assert "sem sinalizar o fim" in str(caught.value)


# --- HTTP errors -------------------------------------------------------------------------------
def test_missing_model_says_to_pull_it() -> None:
    with FakeOllama(models=()) as server, pytest.raises(ModelNotFound) as caught:
        ask(server.url)
    assert "ollama pull deepseek-r1" in str(caught.value)
    assert caught.value.model == "deepseek-r1"


def test_plain_text_404_means_an_old_server_not_a_missing_model() -> None:
    with (
        FakeOllama(missing_paths=["/api/chat"]) as server,
        pytest.raises(UnsupportedServer) as caught,
    ):
        ask(server.url)
    assert "/api/chat" in str(caught.value) and "ollama pull" not in str(caught.value)


def test_model_without_thinking_rejects_think_true_but_answers_without_it(fake) -> None:
    with client_for(fake.url, model="llama3.2") as client:
        with pytest.raises(ThinkingUnsupported) as caught:
            chat(client, think=True)
        assert caught.value.model == "llama3.2" and "--no-think" in str(caught.value)
        assert split(chat(client, think=None)) == ("", REPLY)


def test_embedding_model_cannot_chat(fake: FakeOllama) -> None:
    with pytest.raises(ChatUnsupported, match="nomic-embed-text"):
        ask(fake.url, model="nomic-embed-text", think=None)


# --- retries -----------------------------------------------------------------------------------
def test_busy_server_is_retried_until_it_answers() -> None:
    with FakeOllama(reply=REPLY, fail_first=2, fail_status=503) as server:
        assert split(ask(server.url, retries=3))[1] == REPLY
    assert len(server.chat_requests) == 3


def test_busy_after_every_retry_raises_busy() -> None:
    with FakeOllama(fail_first=99, fail_status=429) as server, pytest.raises(ServerBusy) as caught:
        ask(server.url, retries=2)
    assert caught.value.status == 429 and "429" in str(caught.value)
    assert len(server.chat_requests) == 3


def test_connection_dropped_mid_answer_is_not_retried() -> None:
    with FakeOllama(reply=REPLY, think_shape="none", drop_after=3) as server:
        received: list[Event] = []
        with pytest.raises(StreamInterrupted) as caught:
            ask(server.url, received=received, retries=3)
    assert caught.value.partial and "incompleto" in str(caught.value)
    assert split(received)[1] == "Instale com `pip "
    assert len(server.chat_requests) == 1, "a retry would print a second answer"


def test_connection_dropped_before_any_token_is_retried() -> None:
    with FakeOllama(drop_after=0) as server, pytest.raises(StreamInterrupted) as caught:
        ask(server.url, retries=2)
    assert not caught.value.partial
    assert len(server.chat_requests) == 3


def test_server_down_says_to_start_ollama_and_names_the_url() -> None:
    url = closed_port_url()
    with pytest.raises(ServerUnreachable) as caught:
        ask(url, retries=1)
    assert "ollama serve" in str(caught.value) and url in str(caught.value)


# --- timeouts ----------------------------------------------------------------------------------
def test_slow_first_token_within_the_read_timeout_is_fine() -> None:
    with FakeOllama(reply="ok", first_token_delay=0.4) as server:
        assert split(ask(server.url, think=False, read_timeout=5.0)) == ("", "ok")


def test_read_timeout_says_the_model_took_too_long_and_how_to_wait_longer() -> None:
    with FakeOllama(first_token_delay=3.0) as server, pytest.raises(ResponseTimeout) as caught:
        ask(server.url, read_timeout=0.3, retries=3)
    assert "0.3 s" in str(caught.value) and "--read-timeout" in str(caught.value)
    assert len(server.chat_requests) == 1, "a cold load is not fixed by asking again at once"


# --- URLs and backend choice -------------------------------------------------------------------
@pytest.mark.parametrize("ollama_host", ["127.0.0.1:{port}", ":{port}", "http://127.0.0.1:{port}/"])
def test_ollama_host_forms_reach_the_server(fake: FakeOllama, ollama_host: str) -> None:
    url = normalise_ollama_url(ollama_host.format(port=fake.port))
    with make_backend(Settings(ollama_url=url)) as backend:
        assert backend.name == "ollama" and backend.model == "deepseek-r1"
        events = list(backend.stream_chat(QUESTION, think=True, num_ctx=4096, temperature=0.0))
    assert split(events)[1] == REPLY
    assert fake.chat_requests[-1]["options"] == {"num_ctx": 4096, "temperature": 0.0}


@pytest.mark.parametrize("host", ["::::", "999.999.1.1:99999"])
def test_an_unparsable_ollama_host_is_a_settings_error_naming_it(host: str) -> None:
    url = normalise_ollama_url(host)
    with pytest.raises(SettingsError, match="endereço inválido") as caught:
        make_backend(Settings(ollama_url=url))
    assert url in str(caught.value) and "OLLAMA_HOST" in str(caught.value)


@pytest.mark.parametrize("temperature", [math.nan, math.inf, -0.5])
def test_a_temperature_json_cannot_carry_is_a_settings_error(temperature: float) -> None:
    with pytest.raises(SettingsError, match="--temperature"):
        make_backend(Settings(temperature=temperature))


def test_make_backend_openai_needs_a_base_url() -> None:
    with pytest.raises(SettingsError, match="--base-url"):
        make_backend(Settings(backend="openai"))
    backend = make_backend(Settings(backend="openai", base_url="http://127.0.0.1:8080"), {})
    assert isinstance(backend, OpenAIClient) and backend.base_url == "http://127.0.0.1:8080/v1"
    backend.close()


# --- embeddings --------------------------------------------------------------------------------
def test_embed_batches_and_keeps_order(fake: FakeOllama) -> None:
    texts = ["instalar com pip", "configurar o cache", "pip install docai", "sair", "ajuda"]
    with client_for(fake.url, embed_batch_size=2) as client:
        vectors = client.embed(texts, model="nomic-embed-text")
    assert vectors == [pytest.approx(hashed_embedding(t)) for t in texts]
    assert [len(b["input"]) for b in fake.bodies("/api/embed")] == [2, 2, 1]
    assert all(math.isclose(sum(x * x for x in v), 1.0) for v in vectors)


def test_embed_answer_without_numbers_is_a_clear_error_not_a_crash() -> None:
    """Some Ollama versions answer `[null]` when asked to embed with a chat model."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"model": "deepseek-r1", "embeddings": [None]})

    client = OllamaClient(
        "http://127.0.0.1:9", "deepseek-r1", transport=httpx.MockTransport(handler)
    )
    with client, pytest.raises(MalformedResponse):
        client.embed(["texto"], model="deepseek-r1")


def test_embed_with_a_missing_model_says_to_pull_that_model(fake: FakeOllama) -> None:
    with client_for(fake.url) as client, pytest.raises(ModelNotFound) as caught:
        client.embed(["x"], model="mxbai-embed-large")
    assert "ollama pull mxbai-embed-large" in str(caught.value)


def test_fake_server_also_runs_as_its_own_process_for_terminal_tests() -> None:
    command = [sys.executable, "-m", "tests.support.fake_ollama", "--port", "0", "--echo"]
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True) as process:
        try:
            url = process.stdout.readline().strip() if process.stdout else ""
            assert split(ask(url, think=False))[1] == "Como instalo?"
        finally:
            process.terminate()


def test_a_web_server_that_is_not_ollama_is_named_so_in_one_line() -> None:
    """`python -m http.server` answers POST with an HTML page (501): the user must read one
    line saying the address is not an Ollama, not the page's markup."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with pytest.raises(UnsupportedServer) as caught:
            ask(f"http://127.0.0.1:{server.server_address[1]}", retries=0)
    finally:
        server.shutdown()
        server.server_close()
    message = str(caught.value)
    assert "não é um Ollama" in message and "/api/chat" in message
    assert "<" not in message and "\n" not in message
