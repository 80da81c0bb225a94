"""What a new user found in daily use (issue 23), each through the real `docai` process: the
REPL in a pseudo-terminal (a colour one, read through a terminal emulator, where the screen
is the point), `docai ask` as a subprocess, a fake Ollama over HTTP that records every
request. The folder is the issue's: tests/eval/widgetron."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.network import closed_port_url

PROMPT = "docai>"
WIDGETRON = Path(__file__).resolve().parents[1] / "eval" / "widgetron"
PARTIAL = "Segundo a documentacao, a resposta completa vem aqui e continua por muito tempo"
NOT_COVERED = "Não encontrei nada sobre isso"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for page in WIDGETRON.iterdir():
        (folder / page.name).write_bytes(page.read_bytes())
    return folder


@pytest.fixture
def fake(numbered_ollama: FakeOllama) -> FakeOllama:
    return numbered_ollama


FIRST_PIECE = "Segundo a documentacao, "  # then the stream pauses until released
PIECES = [FIRST_PIECE, "a resposta ", "completa ", "vem aqui ", "e continua ", "por muito tempo"]
assert "".join(PIECES) == PARTIAL


@pytest.fixture
def slow() -> Iterator[FakeOllama]:
    """A long answer that stops after its first words until released: Ctrl-C lands in the
    middle, whatever the machine's load."""
    with FakeOllama(chunks=PIECES, think_shape="none", hold_after=1) as server:
        yield server
        server.release()


def spawn(tmp_path: Path, url: str, *args: str | Path, color: bool = False,
          width: int = 120) -> pexpect.spawn:
    env = docai_env(tmp_path, url)
    for size in ("COLUMNS", "LINES"):  # as in a login shell: the size is the terminal's
        env.pop(size, None)
    if color:
        del env["NO_COLOR"]
    return pexpect.spawn(DOCAI, [str(arg) for arg in args], env=env, encoding="utf-8",
                         timeout=60, dimensions=(30, width))


def repl(tmp_path: Path, url: str, docs: Path, *args: str) -> pexpect.spawn:
    child = spawn(tmp_path, url, "--docs", docs, *args)
    child.expect(PROMPT)
    return child


def ask(child: pexpect.spawn, question: str, answer: str) -> str:
    """Ask at the prompt; what was shown up to the next prompt."""
    child.sendline(question)
    child.expect(re.escape(answer))
    shown = child.before + child.after
    child.expect(PROMPT)
    return str(shown + child.before)


def quit_(child: pexpect.spawn) -> None:
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def run(tmp_path: Path, url: str, *args: str | Path,
        merged: bool = False) -> subprocess.CompletedProcess[str]:
    """`docai ARGS` with its output captured (`merged`: stderr into stdout, in the order a
    terminal would show them)."""
    return subprocess.run([DOCAI, *map(str, args)], env=docai_env(tmp_path, url), text=True,
                          stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          timeout=120, check=False)


def prompt_of(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def screen_lines(output: str, width: int) -> list[str]:
    """The non-blank lines a terminal of `width` columns shows after `output`."""
    screen = pyte.Screen(width, 200)
    pyte.Stream(screen).feed(output)
    return [line.rstrip() for line in screen.display if line.strip()]


# --- follow-ups --------------------------------------------------------------------------------

def test_an_elliptic_follow_up_is_answered_from_the_passage_just_used(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = repl(tmp_path, fake.url, docs)
    ask(child, "Qual é a porta padrão?", "Resposta 1.")
    shown = ask(child, "e o número de workers?", "Resposta 2.")
    assert NOT_COVERED not in shown
    assert "--workers N" in prompt_of(fake.chat_requests[1])
    quit_(child)


def test_a_question_that_stands_alone_is_not_steered_by_the_earlier_ones(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = repl(tmp_path, fake.url, docs)
    for number, question in enumerate(
        ("Qual é a porta padrão?", "How do I change my password?",
         "What happens when I exceed the rate limit?"), start=1):
        ask(child, question, f"Resposta {number}.")
    shown = ask(child, "Quantas cópias de backup são mantidas?", "Resposta 4.")
    assert re.search(r"Fontes:\s+\[1\] backup\.md", shown), shown
    quit_(child)


def interrupt_an_answer(child: pexpect.spawn) -> None:
    child.sendline("What file formats are supported?")
    child.expect("Segundo")
    child.sendintr()
    child.expect(r"\(resposta interrompida\)")
    child.expect(PROMPT)


def ask_for_html_after_it(child: pexpect.spawn, slow: FakeOllama) -> None:
    """"e para HTML?" goes to the model with the interrupted question before it."""
    slow.release()  # this answer streams whole
    child.sendline("e para HTML?")
    child.expect(re.escape(PARTIAL))
    child.expect(PROMPT)
    follow_up = slow.chat_requests[-1]["messages"]
    assert [m["content"] for m in follow_up if m["role"] == "user"][0] == (
        "What file formats are supported?")
    assert "HTML import" in prompt_of(slow.chat_requests[-1])
    quit_(child)


def test_an_interrupted_question_stays_in_the_conversation(
    tmp_path: Path, docs: Path, slow: FakeOllama
) -> None:
    child = repl(tmp_path, slow.url, docs)
    interrupt_an_answer(child)
    ask_for_html_after_it(child, slow)


def test_an_interrupted_question_stays_in_a_resumed_conversation(
    tmp_path: Path, docs: Path, slow: FakeOllama
) -> None:
    child = repl(tmp_path, slow.url, docs)
    interrupt_an_answer(child)
    quit_(child)
    ask_for_html_after_it(repl(tmp_path, slow.url, docs, "-c"), slow)


# --- Ctrl-C on a colour terminal ----------------------------------------------------------------

def interrupted_screen(child: pexpect.spawn, width: int, *, then: str | type) -> list[str]:
    """Ctrl-C in a pause of the stream, the answer's line drawn whole (a terminal echoes
    "^C" at the cursor, after it); what the screen shows once the answer stopped."""
    shown = [child.before, child.after]
    child.expect(FIRST_PIECE.strip())  # all the server sends before it holds the stream
    shown += [child.before, child.after]
    child.sendintr()
    child.expect(then)
    shown.append(child.before)
    return screen_lines("".join(s for s in shown if isinstance(s, str)), width)


@pytest.mark.parametrize("command", ["repl", "ask"])
def test_ctrl_c_leaves_the_partial_answer_once_on_a_colour_terminal(
    tmp_path: Path, docs: Path, slow: FakeOllama, command: str
) -> None:
    question = "What file formats are supported?"
    width = 100
    if command == "ask":
        child = spawn(tmp_path, slow.url, "ask", question, "--docs", docs, color=True,
                      width=width)
        lines = interrupted_screen(child, width, then=pexpect.EOF)
    else:
        child = spawn(tmp_path, slow.url, "--docs", docs, color=True, width=width)
        child.expect(PROMPT)
        child.sendline(question)
        lines = interrupted_screen(child, width, then=PROMPT)
        quit_(child)
    partial = [line for line in lines if line.startswith("Segundo")]
    assert len(partial) == 1, lines
    assert lines[lines.index(partial[0]) + 1] == "(resposta interrompida)"


# --- failures: the cause first ----------------------------------------------------------------

def test_a_missing_model_is_said_first_in_one_line_then_the_passages(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    done = run(tmp_path, fake.url, "ask", "Qual é a porta padrão?", "--docs", docs,
               "--model", "missing-x", "-k", "5", merged=True)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    cause = next(n for n, line in enumerate(lines) if "missing-x" in line)
    passages = lines.index("Trechos mais relevantes da documentação (sem o modelo):")
    assert cause < passages
    assert lines[cause].startswith("docai: o modelo não respondeu:")
    assert "ollama pull missing-x" in lines[cause]


def test_a_connection_dropped_mid_answer_is_said_in_portuguese(
    tmp_path: Path, docs: Path
) -> None:
    with FakeOllama(reply="Rode widgetron serve com a porta 8080 e pronto.", think_shape="none",
                    drop_after=3) as dropping:
        done = run(tmp_path, dropping.url, "ask", "Qual é a porta padrão?", "--docs", docs)
    assert done.returncode == 1
    assert "a conexão com" in done.stderr and "caiu no meio da resposta" in done.stderr
    assert "o servidor fechou a conexão antes do fim" in done.stderr
    assert "peer closed" not in done.stderr and "incomplete" not in done.stderr


def test_piped_reasoning_goes_to_stderr_labelled_and_stdout_is_the_answer(
    tmp_path: Path, docs: Path
) -> None:
    with FakeOllama(reply="A porta padrão é 8000 [1].", thinking="Vou ler o deploy.md.") as fake:
        done = run(tmp_path, fake.url, "ask", "Qual é a porta padrão?", "--docs", docs,
                   "--show-thinking")
    assert done.returncode == 0, done.stderr
    assert "Vou ler" not in done.stdout
    assert done.stdout.startswith("A porta padrão é 8000 [1].")
    assert "Raciocínio do modelo:\nVou ler o deploy.md.\n" in done.stderr


# --- /reindexar -------------------------------------------------------------------------------

def test_reindexar_says_it_in_one_line_and_names_the_cache_in_use(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    cache = tmp_path / "my cache"
    child = repl(tmp_path, fake.url, docs, "--cache-dir", str(cache))
    (docs / "novo.md").write_text("# Novo\n\nUm arquivo novo sobre upgrades.\n", encoding="utf-8")
    (docs / "vazio.md").write_text("# Só o título\n", encoding="utf-8")
    child.sendline("/reindexar")
    child.expect("/reindexar")
    child.expect("Índice atualizado")
    assert "atualizado" not in child.before  # no second account of the same update
    child.expect(PROMPT)
    shown = "Índice atualizado" + child.before
    lines = [line.strip() for line in shown.splitlines() if line.strip() and "\x1b" not in line]
    assert lines == [
        "Índice atualizado: 6 arquivo(s), 18 trecho(s). 1 novo(s), 0 alterado(s), 0 removido(s)."
        f" 1 arquivo(s) ignorado(s): `docai index --docs {docs} --cache-dir '{cache}'` mostra os"
        " motivos."
    ], lines
    quit_(child)


# --- the prompt's small things ------------------------------------------------------------------

def test_tab_completes_a_command_with_its_space(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = repl(tmp_path, fake.url, docs)
    child.send("/mo")
    child.expect("/mo")
    child.send("\t")
    child.expect("delo")
    child.send("llama3.2\r")
    child.expect(r"Modelo agora: llama3\.2\.")
    child.expect(PROMPT)
    quit_(child)


def test_pensamento_takes_on_or_off_and_refuses_anything_else(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = repl(tmp_path, fake.url, docs)
    child.sendline("/pensamento extra")
    child.expect(r"/pensamento aceita on ou off \(ou nada, para alternar\), recebi 'extra'")
    child.expect(PROMPT)
    child.sendline("/ajuda")
    child.expect(r"raciocínio do modelo \(agora: oculto\)")  # left as it was
    child.expect(PROMPT)
    child.sendline("/pensamento on")
    child.expect(r"Raciocínio do modelo: visível")
    child.expect(PROMPT)
    child.sendline("/pensamento off")
    child.expect(r"Raciocínio do modelo: oculto")
    child.expect(PROMPT)
    quit_(child)


@pytest.mark.parametrize("line", ["?", "..."])
def test_punctuation_alone_asks_for_a_question(
    tmp_path: Path, docs: Path, fake: FakeOllama, line: str
) -> None:
    child = repl(tmp_path, fake.url, docs)
    child.sendline(line)
    child.expect("Escreva uma pergunta sobre a documentação")
    child.expect(PROMPT)
    quit_(child)
    assert fake.chat_requests == []


# --- suggestions --------------------------------------------------------------------------------

def test_a_config_typo_gets_the_key_it_meant(tmp_path: Path, docs: Path) -> None:
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('modle = "llama3.2"\n', encoding="utf-8")
    done = run(tmp_path, closed_port_url(), "search", "porta", "--docs", docs)
    assert done.returncode == 2
    assert "chave desconhecida 'modle' (você quis dizer 'model'?)" in done.stderr


def test_an_unknown_option_gets_a_suggestion_only_when_one_is_close(
    tmp_path: Path, docs: Path
) -> None:
    bogus = run(tmp_path, closed_port_url(), "search", "porta", "--docs", docs, "--bogus")
    assert bogus.returncode == 2
    assert "opção desconhecida --bogus" in bogus.stderr
    assert "--verbose" not in bogus.stderr
    close = run(tmp_path, closed_port_url(), "search", "porta", "--docs", docs, "--verbsoe")
    assert "opção desconhecida --verbsoe; você quis dizer --verbose?" in close.stderr
