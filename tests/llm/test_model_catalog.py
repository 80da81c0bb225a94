"""What Ollama says about its models (`/api/tags`, `/api/show`), read by the real client from
the fake server over HTTP."""

from __future__ import annotations

import pytest

from docai.llm.errors import ModelNotFound, ServerUnreachable, UnsupportedServer
from docai.llm.models import find_installed, same_model, short_name
from docai.llm.ollama import OllamaClient
from tests.support.fake_ollama import FakeModel, FakeOllama
from tests.support.network import closed_port_url


def test_installed_models_are_listed_with_their_details() -> None:
    models = (FakeModel("deepseek-r1:latest"), FakeModel("qwen3:8b", parameter_size="8.2B"))
    with FakeOllama(models=models) as fake, OllamaClient(fake.url, "deepseek-r1") as client:
        installed = client.list_models()
    assert [m.name for m in installed] == ["deepseek-r1:latest", "qwen3:8b"]
    assert installed[1].parameter_size == "8.2B" and installed[1].family == "qwen2"
    assert find_installed("deepseek-r1", installed) is installed[0]
    assert find_installed("qwen3", installed) is None  # qwen3 means qwen3:latest
    assert [short_name(m.name) for m in installed] == ["deepseek-r1", "qwen3:8b"]


def test_show_tells_what_a_model_can_do_and_its_context_length() -> None:
    with FakeOllama() as fake, OllamaClient(fake.url, "deepseek-r1") as client:
        chat = client.show("deepseek-r1")
        embedder = client.show("nomic-embed-text")
        assert fake.bodies("/api/show")[0] == {"model": "deepseek-r1"}
    assert chat.can_chat and chat.can_think and chat.context_length == 131072
    assert embedder.can_chat is False and embedder.context_length == 2048


def test_a_model_not_pulled_is_model_not_found_with_the_pull_hint() -> None:
    with (
        FakeOllama() as fake,
        OllamaClient(fake.url, "x") as client,
        pytest.raises(ModelNotFound) as raised,
    ):
        client.show("qwen3")
    assert "ollama pull qwen3" in str(raised.value)


def test_a_server_too_old_to_list_capabilities_concludes_nothing() -> None:
    with FakeOllama(list_capabilities=False) as fake, OllamaClient(fake.url, "x") as client:
        details = client.show("deepseek-r1")
    assert details.capabilities is None and details.can_chat is None


def test_a_server_without_the_endpoints_is_named_as_such() -> None:
    with (
        FakeOllama(missing_paths=("/api/tags",)) as fake,
        OllamaClient(fake.url, "x") as client,
        pytest.raises(UnsupportedServer),
    ):
        client.list_models()


def test_a_server_that_is_down_is_unreachable() -> None:
    with (
        OllamaClient(closed_port_url(), "x", retries=0) as client,
        pytest.raises(ServerUnreachable),
    ):
        client.list_models()


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [("llama3.2", "llama3.2:latest", True), ("llama3.2:1b", "llama3.2", False),
     ("host:5000/ns/model", "host:5000/ns/model:latest", True)],
)
def test_a_name_without_a_tag_means_latest(a: str, b: str, same: bool) -> None:
    assert same_model(a, b) is same
