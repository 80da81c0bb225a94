"""OpenAIClient against a real HTTP server speaking OpenAI's streamed chat API (SSE)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from docai.llm.backends import make_backend
from docai.llm.errors import (
    AuthenticationFailed,
    ModelNotFound,
    ServerBusy,
    ServerUnreachable,
    StreamError,
    StreamInterrupted,
    UnsupportedServer,
)
from docai.llm.events import Done, Event, Message, TextDelta, ThinkingDelta
from docai.llm.openai import OpenAIClient
from docai.settings import Settings
from tests.support.fake_openai import FakeOpenAI
from tests.support.network import closed_port_url

QUESTION = [Message("system", "Use as fontes."), Message("user", "Como configuro o cache?")]
REPLY = "Defina DOCAI_CACHE_DIR com a pasta desejada."


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(reply=REPLY, thinking="Procurar cache nas fontes.") as server:
        yield server


def client_for(url: str, model: str = "deepseek-r1", **options: object) -> OpenAIClient:
    settings: dict[str, object] = {"backoff": 0.01, "read_timeout": 5.0, "connect_timeout": 2.0}
    return OpenAIClient(url, model, **(settings | options))  # type: ignore[arg-type]


def chat(client: OpenAIClient, received: list[Event] | None = None) -> list[Event]:
    events = received if received is not None else []
    for event in client.stream_chat(QUESTION, think=True, num_ctx=8192, temperature=0.3):
        events.append(event)
    return events


def ask(
    url: str, *, received: list[Event] | None = None, model: str = "deepseek-r1", **options: object
) -> list[Event]:
    with client_for(url, model, **options) as client:
        return chat(client, received)


def split(events: list[Event]) -> tuple[str, str]:
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return thinking, text


@pytest.mark.parametrize("suffix", ["/v1", "", "/v1/", "/"])
def test_streams_reasoning_content_then_answer_with_or_without_v1(fake, suffix: str) -> None:
    with client_for(fake.url + suffix) as client:
        events = chat(client)
    assert split(events) == ("Procurar cache nas fontes.", REPLY)
    assert len([e for e in events if isinstance(e, TextDelta)]) > 3
    assert events[-1] == Done(done_reason="stop", prompt_eval_count=7, eval_count=10)


def test_request_sets_temperature_streaming_and_usage_but_no_max_tokens(fake) -> None:
    with client_for(fake.url) as client:
        chat(client)
    (body,) = fake.chat_requests
    assert body["temperature"] == 0.3 and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][1] == {"role": "user", "content": "Como configuro o cache?"}
    assert "max_tokens" not in body


def test_inline_think_tags_in_content_become_reasoning() -> None:
    with FakeOpenAI(reply=REPLY, thinking="Pensar.", think_shape="inline", chunk_size=4) as server:
        thinking, text = split(ask(server.url))
    assert (thinking.strip(), text) == ("Pensar.", REPLY)


def test_unknown_model_reports_the_server_message(fake) -> None:
    with pytest.raises(ModelNotFound) as caught:
        ask(fake.url, model="qwen3")
    assert "The model `qwen3` does not exist." in str(caught.value)
    assert "--model" in str(caught.value)


def test_wrong_path_is_not_mistaken_for_a_missing_model(fake) -> None:
    with pytest.raises(UnsupportedServer) as caught:
        ask(fake.url + "/api/v1")
    assert "--base-url" in str(caught.value)


def test_api_key_from_environment_is_sent_and_a_wrong_one_is_explained() -> None:
    with FakeOpenAI(reply="ok", think_shape="none", api_key="segredo") as server:
        settings = Settings(backend="openai", base_url=server.url)
        with make_backend(settings, {"OPENAI_API_KEY": "segredo"}) as backend:
            assert split(
                list(backend.stream_chat(QUESTION, think=None, num_ctx=4096, temperature=0.2))
            ) == ("", "ok")
        with (
            make_backend(settings, {"OPENAI_API_KEY": "errada"}) as backend,
            pytest.raises(AuthenticationFailed, match="OPENAI_API_KEY"),
        ):
            list(backend.stream_chat(QUESTION, think=None, num_ctx=4096, temperature=0.2))


def test_server_down_says_to_start_the_server_at_the_url() -> None:
    url = closed_port_url() + "/v1"
    with pytest.raises(ServerUnreachable) as caught:
        ask(url, retries=1)
    assert url in str(caught.value) and "--base-url" in str(caught.value)


def test_error_event_mid_stream_raises_with_the_server_text() -> None:
    with FakeOpenAI(
        reply=REPLY, think_shape="none", error_after=2, error_message="slot unavailable"
    ) as server:
        received: list[Event] = []
        with pytest.raises(StreamError) as caught:
            ask(server.url, received=received)
    assert caught.value.server_message == "slot unavailable"
    assert split(received)[1] == "Defina DOCAI_CACHE_DIR "


def test_drop_mid_answer_is_interrupted_not_retried() -> None:
    with FakeOpenAI(reply=REPLY, think_shape="none", drop_after=2) as server:
        received: list[Event] = []
        with pytest.raises(StreamInterrupted) as caught:
            ask(server.url, received=received, retries=3)
    assert caught.value.partial and split(received)[1] == "Defina DOCAI_CACHE_DIR "
    assert len(server.chat_requests) == 1


def test_busy_is_retried_then_reported() -> None:
    with FakeOpenAI(reply="ok", think_shape="none", fail_first=1) as server:
        assert split(ask(server.url, retries=2)) == ("", "ok")
        server.fail_first = 99
        with pytest.raises(ServerBusy):
            ask(server.url, retries=1)
    assert len(server.chat_requests) == 2 + 2


def test_chunks_with_fields_of_the_wrong_type_are_ignored_not_a_crash() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "Olá"}}]},
        {"choices": "x"},
        {"choices": [7]},
        {"choices": [{"delta": "oi", "finish_reason": 3}]},
        {"choices": [{"delta": {"content": ["x"], "reasoning_content": 5}}]},
        {"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": "muitos"},
        {"choices": [], "usage": {"prompt_tokens": "9", "completion_tokens": 4}},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, text=body, headers={"content-type": "text/event-stream"}
        )
    )
    events = ask("http://127.0.0.1:9/v1", transport=transport)
    assert split(events) == ("", "Olá")
    assert events[-1] == Done(done_reason="stop", eval_count=4)
