"""The task prefixes some embedding models need on questions and on passages.

Why: asymmetric retrieval models were trained with a marker telling a search query from a
passage ("search_query: " / "search_document: " for nomic-embed-text, "query: " /
"passage: " for the E5 family). Ollama passes text through unchanged, so without the
markers these models embed questions and passages as if they were the same kind of text,
and rank noticeably worse. Models trained without markers (bge-m3, all-minilm) get none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EmbeddingPrompts:
    """What goes before a question and before a passage for one model."""

    query: str = ""
    document: str = ""


_SEARCH_INSTRUCTION = "Represent this sentence for searching relevant passages: "

# Model family (the name without registry path or tag) prefix -> its prompts, first match.
_KNOWN: tuple[tuple[str, EmbeddingPrompts], ...] = (
    ("nomic-embed-text", EmbeddingPrompts("search_query: ", "search_document: ")),
    ("mxbai-embed-large", EmbeddingPrompts(_SEARCH_INSTRUCTION)),
    ("snowflake-arctic-embed", EmbeddingPrompts(_SEARCH_INSTRUCTION)),
    ("bge-large-en", EmbeddingPrompts(_SEARCH_INSTRUCTION)),
    ("bge-base-en", EmbeddingPrompts(_SEARCH_INSTRUCTION)),
    ("bge-small-en", EmbeddingPrompts(_SEARCH_INSTRUCTION)),
)
_E5 = EmbeddingPrompts("query: ", "passage: ")


def prompts_for(model: str) -> EmbeddingPrompts:
    """The prompts of `model` as Ollama names it ("nomic-embed-text:latest",
    "jeffh/intfloat-multilingual-e5-large:f16"); none for a model we do not know."""
    family = model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for prefix, prompts in _KNOWN:
        if family.startswith(prefix):
            return prompts
    if "e5-" in family or family.startswith("e5") or family.endswith("-e5"):
        return _E5
    return EmbeddingPrompts()
