"""A real (tiny) model answers through the real `docai` CLI, over both backends.

The 135M model's facts are unreliable, so these tests check the flow and the protocol:
docai exits 0, prints a non-empty answer, cites files that exist in the docs folder after
it, and the server really served a chat request (its log says so). Against the Ollama
look-alike docai first asks with `think: true`, gets Ollama's 400 "does not support
thinking", and must retry without it; the answer arriving proves the retry works.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from docai import messages
from tests.e2e.servers import MODEL_NAME, RunningServer, die_with_parent

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# Named commands and options, so both resources/docs (whatever its language) and the
# fallback docs in conftest cover them.
QUESTION_ASK = "O que faz o comando docai ask?"
QUESTION_NUM_CTX = "Como mudo a janela de contexto com --num-ctx?"
RUN_TIMEOUT_S = 240
OLLAMA_CHAT_OK = re.compile(r'"POST /api/chat HTTP/1\.1" 200')
OLLAMA_THINK_REFUSED = re.compile(r'"POST /api/chat HTTP/1\.1" 400')
OPENAI_CHAT_OK = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" 200')
SOURCE_LINE = re.compile(r"^\s*\[\d+\]\s+(.+)$")
# Where to look in a file, after its name: "guia.md:12", "manual.pdf p. 47", "x.ipynb célula 3".
LOCATION = re.compile(r"(?::\d+| p\. \d+| célula \d+)$")


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    sources: tuple[str, ...]  # the cited files, relative to the docs folder


def docs_files(docs_dir: Path) -> set[str]:
    return {p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*") if p.is_file()}


def parse_answers(stdout: str) -> list[Answer]:
    """Split docai's stdout into answers, each followed by its sources block.

    A block is `Fontes:` and `[n] file > heading` lines, or the single fallback line
    `Fonte: file (...)`; the answer is the text between the previous block and this one.
    """
    header = messages.ANSWER_SOURCES_HEADER
    fallback_prefix = messages.ANSWER_FALLBACK_SOURCE.split("{source}")[0]
    answers: list[Answer] = []
    text: list[str] = []
    lines = stdout.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == header:
            sources: list[str] = []
            i += 1
            while i < len(lines) and (match := SOURCE_LINE.match(lines[i])):
                sources.append(LOCATION.sub("", match.group(1).split(" > ")[0].strip()))
                i += 1
            answers.append(Answer("\n".join(text).strip(), tuple(sources)))
            text = []
            continue
        if line.startswith(fallback_prefix):
            source = line.removeprefix(fallback_prefix).split(" (")[0].strip()
            answers.append(Answer("\n".join(text).strip(), (source,)))
            text = []
        else:
            text.append(line)
        i += 1
    return answers


def run_docai(args: list[str], env: dict[str, str], cwd: Path,
              stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, "-m", "docai", *args], cwd=cwd, env=env,
                              input=stdin if stdin is not None else "", capture_output=True,
                              text=True, timeout=RUN_TIMEOUT_S, preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"docai {' '.join(args)} took over {RUN_TIMEOUT_S} s;\n"
                    f"stdout:\n{error.stdout}\nstderr:\n{error.stderr}")


def check_answers(result: subprocess.CompletedProcess[str], docs_dir: Path,
                  expected: int) -> list[Answer]:
    """Exit 0 and `expected` answers, each non-empty and citing files of the docs folder."""
    shown = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, shown
    answers = parse_answers(result.stdout)
    assert len(answers) == expected, shown
    files = docs_files(docs_dir)
    for answer in answers:
        assert answer.text, shown
        assert answer.sources, shown
        assert set(answer.sources) <= files, shown
    return answers


def new_matches(pattern: re.Pattern[str], server: RunningServer, before: str) -> int:
    return len(pattern.findall(server.log_text())) - len(pattern.findall(before))


def test_ask_through_ollama_retries_without_thinking(
    ollama_server: RunningServer, docs_dir: Path, docai_env: dict[str, str], docai_home: Path
) -> None:
    before = ollama_server.log_text()
    env = docai_env | {"OLLAMA_HOST": f"127.0.0.1:{ollama_server.port}"}

    # `docai index` embeds a folder this small whole, with the real bundled model; a question
    # is then ranked by meaning too (before that, by words alone).
    indexed = run_docai(["index", "--docs", str(docs_dir)], env, docai_home)
    assert indexed.returncode == 0, indexed.stderr
    assert "Embeddings prontos" in indexed.stdout + indexed.stderr, indexed.stderr
    result = run_docai(["ask", QUESTION_ASK, "--docs", str(docs_dir), "--model", MODEL_NAME,
                        "-v"], env, docai_home)

    check_answers(result, docs_dir, expected=1)
    assert "Busca por significado: multilingual-e5-small, embutido" in result.stderr
    assert new_matches(OLLAMA_CHAT_OK, ollama_server, before) == 1, ollama_server.log_text()
    if new_matches(OLLAMA_THINK_REFUSED, ollama_server, before):
        # Retried without thinking, quietly: the user did not ask to see any reasoning.
        assert "modo de raciocínio" not in result.stderr, result.stderr


def test_ask_through_openai_compatible_server(
    openai_server: RunningServer, docs_dir: Path, docai_env: dict[str, str], docai_home: Path
) -> None:
    before = openai_server.log_text()

    result = run_docai(["ask", QUESTION_ASK, "--docs", str(docs_dir), "--backend", "openai",
                        "--base-url", f"{openai_server.url}/v1", "--model", MODEL_NAME],
                       docai_env, docai_home)

    check_answers(result, docs_dir, expected=1)
    assert new_matches(OPENAI_CHAT_OK, openai_server, before) == 1, openai_server.log_text()


def test_repl_answers_piped_questions_then_quits(
    ollama_server: RunningServer, docs_dir: Path, docai_env: dict[str, str], docai_home: Path
) -> None:
    before = ollama_server.log_text()
    env = docai_env | {"OLLAMA_HOST": f"127.0.0.1:{ollama_server.port}"}
    questions = f"{QUESTION_NUM_CTX}\n{QUESTION_ASK}\nsair\n"

    result = run_docai(["--docs", str(docs_dir), "--model", MODEL_NAME], env, docai_home,
                       stdin=questions)

    check_answers(result, docs_dir, expected=2)
    assert new_matches(OLLAMA_CHAT_OK, ollama_server, before) == 2, ollama_server.log_text()
