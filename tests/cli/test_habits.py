"""Habits brought from `llm`, `ollama run` and aichat, through the real `docai`: a question
where the command goes, `ask -c` and `ask -r N`, and the limits a question and a
conversation number meet (a huge question, a number past SQLite's range)."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, write_docs

PROMPT = "docai>"
HUGE = "9" * 23  # past a 64-bit integer: SQLite cannot even compare it


@pytest.fixture
def fake(numbered_ollama: FakeOllama) -> FakeOllama:
    return numbered_ollama


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "docs")


def user_turns(request: dict[str, Any]) -> list[str]:
    """The earlier questions a chat request carries (the last user message is the prompt)."""
    return [m["content"] for m in request["messages"][1:-1] if m["role"] == "user"]


def test_a_question_where_the_command_goes_is_asked(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    done = docai(QUESTION, "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert "Resposta 1." in done.stdout and "Fontes:" in done.stdout
    done = docai("--docs", docs, "pipx")  # one word, after an option taking a value
    assert done.returncode == 0, done.stderr
    mistyped = docai("serach", "porta")
    assert mistyped.returncode == 2
    assert "você quis dizer search?" in mistyped.stderr


def test_ask_c_continues_the_last_conversation_and_r_n_a_given_one(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    assert docai("ask", QUESTION, "--docs", docs).returncode == 0
    continued = docai("ask", "-c", "e com pipx?", "--docs", docs)
    assert continued.returncode == 0, continued.stderr
    assert "Retomando a conversa" in continued.stderr
    assert user_turns(fake.chat_requests[-1]) == [QUESTION]
    assert docai("ask", "Qual é o padrão de --num-ctx?", "--docs", docs).returncode == 0  # new
    assert user_turns(fake.chat_requests[-1]) == []
    first = min(entry["session"] for entry in json.loads(docai("log", "--json").stdout))
    again = docai("ask", "-r", str(first), "e o comando exato?", "--docs", docs)
    assert again.returncode == 0, again.stderr
    assert user_turns(fake.chat_requests[-1]) == [QUESTION, "e com pipx?"]
    sessions = [entry["session"] for entry in json.loads(docai("log", "--json").stdout)]
    assert sessions.count(first) == 3  # logged in the conversation it continued
    both = docai("ask", "-c", "-r", str(first), "x", "--docs", docs)
    assert both.returncode == 2 and "não os dois" in both.stderr


def test_a_conversation_number_past_sqlite_range_is_no_conversation(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    done = docai("ask", "--resume", HUGE, QUESTION, "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert f"não há conversa #{HUGE}" in done.stderr
    for args in (("--rename", HUGE, "nome"), ("--delete", HUGE, "--yes")):
        done = docai("log", *args)
        assert done.returncode == 2, done.stderr
        assert f"não há conversa #{HUGE} no registro" in done.stderr
        assert "inesperado" not in done.stderr
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, fake.url),
                          encoding="utf-8", timeout=60, dimensions=(40, 160))
    child.expect(PROMPT)
    child.sendline(f"/retomar {HUGE}")
    child.expect("/retomar precisa do número de uma conversa")
    child.sendline(QUESTION)  # the session goes on
    child.expect(r"Resposta \d+\.")
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_huge_question_is_refused_in_one_line_before_any_work(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    env = docai_env(tmp_path, fake.url)
    huge = "porta " * 2_800_000  # 16 MB
    asked = subprocess.run([DOCAI, "ask", "-", "--docs", str(docs)], input=huge, env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert asked.returncode == 2
    assert "a pergunta tem 16.800.000 caracteres; o limite é 65.536" in asked.stderr
    assert len(asked.stderr) < 400 and not fake.chat_requests
    searched = subprocess.run([DOCAI, "search", "--docs", str(docs)], input=huge[:4_000_000],
                              env=env, capture_output=True, text=True, timeout=120, check=False)
    assert searched.returncode == 2 and "o limite é 65.536" in searched.stderr
    piped = subprocess.run([DOCAI, "--docs", str(docs)], input=f"{huge[:400_000]}\n{QUESTION}\n",
                           env=env, capture_output=True, text=True, timeout=120, check=False)
    assert piped.returncode == 0, piped.stderr
    assert "o limite é 65.536" in piped.stdout + piped.stderr
    assert "Resposta 1." in piped.stdout  # the next question is answered
    assert len(fake.chat_requests) == 1
    logged = subprocess.run([DOCAI, "log", "--json"], env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert [entry["question"] for entry in json.loads(logged.stdout)] == [QUESTION]


def test_what_set_changes_can_be_kept_in_the_config_file_and_config_names_its_origin(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('num_ctx = 16384\ntemperature = 0.7\nmax_tokens = 2048\n'
                      'thinking = false\nsystem = "Responda em tópicos."\n', encoding="utf-8")
    assert docai("ask", QUESTION, "--docs", docs, "--temperature", "0.5").returncode == 0
    request = fake.chat_requests[-1]
    assert request["options"]["num_ctx"] == 16384
    assert request["options"]["temperature"] == 0.5  # an option beats the file
    assert request["options"]["num_predict"] == 2048
    assert request.get("think") is False
    assert "Responda em tópicos." in request["messages"][0]["content"]
    shown = docai("config", "--temperature", "0.5").stdout
    for key, value, origin in (("num_ctx", "16384", "arquivo de configuração"),
                               ("temperature", "0.5", "opção (--temperature)"),
                               ("thinking", "off", "arquivo de configuração"),
                               ("system", "'Responda em tópicos.'", "arquivo de configuração"),
                               ("show_thinking", "off", "padrão")):
        assert re.search(rf"^  {key} +{re.escape(value)} +{re.escape(origin)}", shown, re.M), shown
    config.write_text("num_ctx = 10\n", encoding="utf-8")
    bad = docai("config")
    assert bad.returncode == 2
    assert "valor fora do intervalo na chave 'num_ctx'" in bad.stderr
    assert "num_ctx = 16384" in bad.stderr  # the fix, as a line of the file


def test_every_repl_command_has_its_english_name_and_a_mistyped_one_gets_a_suggestion(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, fake.url),
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect(PROMPT)
    child.sendline(QUESTION)
    child.expect(r"Resposta 1\.")
    child.expect(PROMPT)
    for english, reply in (("/sources", r"\[1\] guide/install\.md"), ("/think", "aciocínio"),
                           ("/model", "Modelo atual: deepseek-r1"),
                           ("/reindex", "Nenhum arquivo mudou"),
                           ("/sessions", "Conversas com esta pasta"), ("/k", r"trecho\(s\)")):
        child.sendline(english)
        child.expect(reply)
        child.expect(PROMPT)
    child.sendline("/fontse")
    child.expect("você quis dizer /fontes\\?")
    child.sendline("/clear")  # the screen, as `clear`: the conversation goes on
    child.expect(PROMPT)
    child.sendline("e com pipx?")
    child.expect(r"Resposta 2\.")
    assert user_turns(fake.chat_requests[-1]) == [QUESTION]
    # Pasted (bracketed paste): the escape sequence arrives raw, an OSC 52 clipboard write.
    child.send("\x1b[200~/modelo x\x1b]52;c;SGk=\x07y\x1b[201~\r")
    child.expect("nome de modelo inválido")
    child.expect(PROMPT)
    assert "\x1b]52" not in child.before
    child.sendline("sair")
    child.expect(pexpect.EOF)


def no_file_may_grow() -> None:
    """In the child: every write that would grow a file fails (EFBIG), as on a full disk;
    works for root too, where a read-only folder would not stop a write."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_a_log_on_a_full_disk_is_read_and_listed_not_called_unusable(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    env = {**docai_env(tmp_path, fake.url), "DOCAI_DENSE": "off"}
    past = time.time() - 30  # not "just modified": the next run reuses the index unread
    for path in docs.rglob("*.md"):
        os.utime(path, (past, past))
    first = subprocess.run([DOCAI, "ask", QUESTION, "--docs", str(docs)], env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    log = tmp_path / "data" / "docai" / "log.sqlite3"
    before = log.read_bytes()
    listed = subprocess.run([DOCAI, "log"], env=env, capture_output=True, text=True,
                            timeout=60, check=False, preexec_fn=no_file_may_grow)
    assert listed.returncode == 0, listed.stderr
    assert QUESTION in listed.stdout and "inutilizável" not in listed.stderr
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=env, encoding="utf-8", timeout=60,
                          dimensions=(40, 200), preexec_fn=no_file_may_grow)
    index = child.expect(["não pode ser gravado agora", pexpect.EOF])
    assert index == 0, child.before
    child.expect(PROMPT)
    child.sendline("/sessoes")
    child.expect("Conversas com esta pasta")
    child.expect(re.escape(QUESTION[:40]))
    child.expect(PROMPT)
    assert "desligado" not in child.before
    child.sendline("e com pipx?")  # answered, not logged
    child.expect(r"Resposta \d+\.")
    child.sendline("sair")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert log.read_bytes() == before


WHOLE_FILE = {"guia.md": "# Guia\n\n## Alfa\n\nO zorbaxe liga o servidor na porta certa.\n\n"
                         "## Beta\n\nO quintelo grava o registro no disco.\n",
              "outro.md": "# Outro\n\nNada de útil aqui sobre servidores.\n"}


def test_abrir_after_an_answer_from_a_whole_file_opens_that_file(
    tmp_path: Path, fake: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs", WHOLE_FILE)
    viewer = tmp_path / "viewer.sh"
    opened = tmp_path / "opened"
    viewer.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{opened}.tmp"\n'
                      f'mv "{opened}.tmp" "{opened}"\n', encoding="utf-8")
    viewer.chmod(0o755)
    # One passage, a bar no single section clears: the file covering both words is read whole.
    child = pexpect.spawn(DOCAI, ["--docs", str(docs), "-k", "1", "--min-coverage", "0.99",
                                  "--dense", "off"],
                          env={**docai_env(tmp_path, fake.url), "VISUAL": str(viewer)},
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect(PROMPT)
    child.sendline("zorbaxe e quintelo?")
    child.expect(r"arquivo inteiro")
    child.expect(PROMPT)
    child.sendline("/abrir")
    child.expect(PROMPT)
    assert "Ainda não há fontes" not in child.before
    child.sendline("sair")
    child.expect(pexpect.EOF)
    assert opened.read_text(encoding="utf-8").split("\n")[:2] == [
        "+3", str((docs / "guia.md").resolve())]


def test_ask_json_sources_carry_their_location_and_store_alone_shows_its_usage(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    done = docai("ask", "--json", QUESTION, "--docs", docs)
    assert done.returncode == 0, done.stderr
    [first, *_] = json.loads(done.stdout)["sources"]
    assert first["source"] == "guide/install.md"
    assert first["location"] == {"unit": "line", "number": 3}
    usage = docai("store")
    assert usage.returncode == 0, usage.stderr
    assert usage.stdout.startswith("uso: docai store") and "list" in usage.stdout


def test_ctrl_x_ctrl_e_with_an_editor_that_saves_nothing_sends_nothing(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)],
                          env={**docai_env(tmp_path, fake.url), "VISUAL": "true"},
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect(PROMPT)
    child.send(QUESTION)
    child.sendcontrol("x")
    child.sendcontrol("e")
    child.expect("Editor fechado sem pergunta: nada perguntado")
    child.sendcontrol("u")  # the typed line is still there: cleared
    child.sendline(f"/editar {QUESTION}")  # the same editor, the same way
    child.expect("Editor fechado sem pergunta: nada perguntado")
    child.sendline("sair")
    child.expect(pexpect.EOF)
    assert not fake.chat_requests


def test_tab_after_retomar_offers_the_logged_conversations_at_once(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    assert docai("ask", QUESTION, "--docs", docs).returncode == 0
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, fake.url),
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect(PROMPT)
    child.send("/retomar ")
    child.send("\t")  # before any /sessoes: the one conversation is completed
    child.send("\r")
    child.expect("Retomando a conversa")
    child.sendline("e com pipx?")
    child.expect(r"Resposta 2\.")
    assert user_turns(fake.chat_requests[-1]) == [QUESTION]
    child.sendline("sair")
    child.expect(pexpect.EOF)


def wait_for_request(server: FakeOllama, path: str) -> None:
    deadline = time.monotonic() + 60
    while not server.bodies(path):
        assert time.monotonic() < deadline, f"no request to {path}"
        time.sleep(0.05)


def test_a_first_start_says_three_things_and_nothing_that_works_as_expected(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    env = {**docai_env(tmp_path, fake.url), "DOCAI_DENSE": "on"}
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=env, encoding="utf-8", timeout=120,
                          dimensions=(40, 200))
    child.expect(PROMPT)
    start = child.before
    wait_for_request(fake, "/api/tags")  # the start-up check ran, and found all well
    child.sendline("sair")
    child.expect(pexpect.EOF)
    assert "respondendo" not in child.before  # the check found all well, and said nothing
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", start)
    shown = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith(("docai>", "Até logo", "sair",
                                                              "Embeddings:"))]
    assert shown == [
        "Busca por significado: multilingual-e5-small, embutido (--dense off desliga).",
        f"docai pronto: 2 arquivo(s), 4 trecho(s) de {docs}; modelo deepseek-r1.",
        "Faça uma pergunta. /ajuda mostra os comandos; sair encerra.",
    ], shown


def test_only_restricts_a_question_to_a_file_or_folder_of_the_collection(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    question = "Como instalo o docai e escolho o modelo?"  # both files have a say
    every = ("--docs", docs, "--min-coverage", "0")  # the ranking alone, no bar
    whole = json.loads(docai("search", "--json", question, *every).stdout)
    assert {hit["source"] for hit in whole["results"]} == {"guide/install.md", "config.md"}
    for only, expected in (("config.md", {"config.md"}), ("guide/", {"guide/install.md"})):
        done = docai("search", "--json", "--only", only, question, *every)
        assert done.returncode == 0, done.stderr
        assert {hit["source"] for hit in json.loads(done.stdout)["results"]} == expected
    asked = docai("ask", "--json", "--only", "config.md", "Qual é o modelo padrão?",
                  "--docs", docs)
    assert {s["source"] for s in json.loads(asked.stdout)["sources"]} == {"config.md"}
    nowhere = docai("ask", "--only", "api", question, "--docs", docs)
    assert nowhere.returncode == 2 and "nenhum arquivo da coleção está em 'api'" in nowhere.stderr


def test_pasta_and_at_file_restrict_the_repl_questions(
    tmp_path: Path, docs: Path, fake: FakeOllama
) -> None:
    child = pexpect.spawn(DOCAI, ["--docs", str(docs)], env=docai_env(tmp_path, fake.url),
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect(PROMPT)
    # Each question is answered by the other file: within the part, the docs do not cover it.
    child.sendline(f"@config.md {QUESTION}")
    child.expect("Não encontrei nada sobre isso")
    child.expect(PROMPT)
    child.sendline("/pasta guide")
    child.expect("Perguntas só sobre guide")
    child.sendline("Qual é o padrão de --num-ctx?")
    child.expect("Não encontrei nada sobre isso")
    child.expect(PROMPT)
    assert not fake.chat_requests
    child.sendline("/pasta -")
    child.expect("Perguntas sobre a coleção toda")
    child.sendline("Qual é o padrão de --num-ctx?")  # the whole collection again
    child.expect(r"Resposta 1\.")
    child.sendline(QUESTION)  # and @ held for one question only
    child.expect(r"Resposta 2\.")
    child.sendline("sair")
    child.expect(pexpect.EOF)


def test_v_shows_the_coverage_behind_a_refusal(
    tmp_path: Path, docs: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, fake.url)
    question = "Como instalo o docai no kubernetes com helm?"
    done = docai("ask", "-v", question, "--docs", docs)
    assert done.returncode == 0 and not fake.chat_requests
    assert re.search(r"\(-v\) os \d melhores trechos cobrem 0\.\d\d da pergunta; o mínimo é "
                     r"0\.65", done.stderr), done.stderr
    plain = docai("ask", question, "--docs", docs)
    assert "(-v)" not in plain.stderr
    piped = docai("-v", "--docs", docs, stdin=question + "\n")
    assert "o mínimo é 0.65" in piped.stderr
