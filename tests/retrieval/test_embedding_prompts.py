"""Which task prompts an embedding model gets, by the name Ollama knows it by."""

from __future__ import annotations

import pytest

from docai.retrieval.embedding_prompts import EmbeddingPrompts, prompts_for


@pytest.mark.parametrize(
    ("model", "query", "document"),
    [
        ("nomic-embed-text", "search_query: ", "search_document: "),
        ("nomic-embed-text:v1.5", "search_query: ", "search_document: "),
        ("jeffh/intfloat-multilingual-e5-large:f16", "query: ", "passage: "),
        ("e5-small", "query: ", "passage: "),
        ("mxbai-embed-large:latest", "Represent this sentence for searching relevant passages: ",
         ""),
    ],
)
def test_asymmetric_models_get_their_prompts(model, query, document):
    assert prompts_for(model) == EmbeddingPrompts(query, document)


@pytest.mark.parametrize("model", ["bge-m3", "all-minilm:latest", "granite-embedding:278m"])
def test_models_trained_without_prompts_get_none(model):
    assert prompts_for(model) == EmbeddingPrompts("", "")
