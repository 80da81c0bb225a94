"""The log of exchanges and the sessions built on it, through the real `docai`: a REPL closed
with `sair` and resumed with `docai -c`, `docai log`, `/sessoes` and `/retomar`, and a log
file that is damaged or locked (the answer must come anyway)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, write_docs

PROMPT = "docai>"
FOLLOWUP = "e com pipx?"


@pytest.fixture
def fake(numbered_ollama: FakeOllama) -> FakeOllama:
    return numbered_ollama


def log_file(home: Path) -> Path:
    return home / "data" / "docai" / "log.sqlite3"


def spawn(tmp_path: Path, url: str, *args: str) -> pexpect.spawn:
    child = pexpect.spawn(DOCAI, ["--docs", str(tmp_path / "docs"), *args],
                          env=docai_env(tmp_path, url), encoding="utf-8", timeout=60,
                          dimensions=(40, 160))
    child.expect(PROMPT)
    return child


def leave(child: pexpect.spawn) -> None:
    child.sendline("sair")
    child.expect("Até logo!")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def chat_turns(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, content) of every message before the current question's prompt."""
    return [(m["role"], m["content"]) for m in request["messages"][1:-1]]


def test_continuar_after_sair_carries_the_earlier_exchange_and_the_log_lists_it(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    write_docs(tmp_path / "docs")
    child = spawn(tmp_path, fake.url)
    child.sendline(QUESTION)
    child.expect("Resposta 1.")
    child.expect(PROMPT)
    leave(child)

    child = spawn(tmp_path, fake.url, "-c")
    assert re.search(r"Retomando a conversa de .* \(1 pergunta\(s\)\); a última: "
                     + re.escape(QUESTION), child.before)
    child.sendline(FOLLOWUP)
    child.expect("Resposta 2.")
    child.expect(PROMPT)
    leave(child)

    # The request after resuming is the one the first session would have sent.
    assert chat_turns(fake.chat_requests[-1]) == [("user", QUESTION), ("assistant", "Resposta 1.")]

    docai.use_env(tmp_path, fake.url)
    code, out, err = docai("log", "--json")
    assert (code, err) == (0, "")
    logged = json.loads(out)
    assert [(e["question"], e["answer"], e["status"]) for e in logged] == [
        (QUESTION, "Resposta 1.", "answered"), (FOLLOWUP, "Resposta 2.", "answered")]
    assert logged[0]["session"] == logged[1]["session"]  # -c went on in the same session
    assert logged[0]["sources"][0] == {
        "source": "guide/install.md", "heading": "Instalação > Com pip", "chunk": 0}
    assert logged[0]["docs"] == str((tmp_path / "docs").resolve())
    assert logged[0]["model"] == "deepseek-r1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", logged[0]["time"])
    for path in log_file(tmp_path).parent.iterdir():  # the log and its WAL/SHM files
        assert path.stat().st_mode & 0o777 == 0o600, path
    assert log_file(tmp_path).parent.stat().st_mode & 0o777 == 0o700

    code, out, _ = docai("log", "-n", "1")
    assert code == 0
    assert FOLLOWUP in out and QUESTION not in out
    assert "Fontes: [1] guide/install.md > Instalação > Com pipx" in out
    code, out, _ = docai("log", "--search", "PIP", "resposta 1")  # case and words
    assert code == 0 and QUESTION in out and FOLLOWUP not in out
    code, out, _ = docai("log", "-n", str(2**64))  # more than SQLite counts: all of them
    assert code == 0 and QUESTION in out and FOLLOWUP in out
    other = write_docs(tmp_path / "other")
    code, out, _ = docai("log", "--docs", other)
    assert code == 0 and f"Nada no registro sobre {other}" in out and "sem --docs" in out


def test_an_interrupted_answer_is_logged_as_interrupted(tmp_path: Path, fake: FakeOllama,
                                                        docai: InProcessDocai) -> None:
    write_docs(tmp_path / "docs")
    fake.reply = "Primeiro passo: " + "devagar " * 300
    fake.chunk_delay = 0.1
    child = spawn(tmp_path, fake.url)
    child.sendline(QUESTION)
    child.expect("Primeiro passo: devagar")
    child.sendcontrol("c")
    child.expect(r"\(resposta interrompida\)")
    child.expect(PROMPT)
    leave(child)
    docai.use_env(tmp_path, fake.url)
    [entry] = json.loads(docai("log", "--json").stdout)
    assert entry["status"] == "interrupted"
    assert entry["answer"].startswith("Primeiro passo: devagar")
    assert entry["question"] == QUESTION


def test_sessoes_lists_and_retomar_reopens_a_conversation(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    lines = [QUESTION, "/nova", "Qual é o padrão de --num-ctx?", "/sessoes", "/retomar 1",
             "/fontes", FOLLOWUP, "/retomar 9", "/retomar"]
    code, out, err = docai("--docs", docs, stdin="\n".join(lines) + "\n")
    assert code == 0, err
    listing = out.split("docai> /sessoes", 1)[1]
    # Each conversation by the number the log gives it, as `docai log --json` does.
    assert re.search(r"#2 .* 1 pergunta\(s\)  Qual é o padrão de --num-ctx\?  \(esta\)\n",
                     listing)
    assert re.search(r"#1 .* 1 pergunta\(s\)  " + re.escape(QUESTION), listing)
    assert "Retomando a conversa de" in listing
    # /fontes right after resuming lists the sources of the turn resumed.
    resumed = listing.split("docai> /fontes", 1)[1].split("docai>", 1)[0]
    assert "[1] guide/install.md:3 > Instalação > Com pip\n" in resumed
    # The follow-up is asked in the first conversation: its exchange, not the second's.
    assert chat_turns(fake.chat_requests[-1]) == [("user", QUESTION), ("assistant", "Resposta 1.")]
    assert "/retomar precisa do número de uma conversa desta pasta" in out
    assert "use /retomar N" in out
    logged = json.loads(docai("log", "--json").stdout)
    assert [e["session"] for e in logged] == [1, 2, 1]
    found = docai("log", "--search", "PADRAO").stdout  # case and accents folded
    assert "Qual é o padrão de --num-ctx?" in found and QUESTION not in found
    assert "Nada no registro com: %." in docai("log", "--search", "%").stdout  # no wildcard


@pytest.mark.parametrize("damage", ["garbage", "locked"])
def test_a_damaged_or_locked_log_never_stops_an_answer(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai, damage: str
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    path = log_file(tmp_path)
    holder = None
    if damage == "garbage":
        path.parent.mkdir(parents=True)
        path.write_bytes(b"not a database at all, but the user's file: keep it\n" * 100)
    else:
        docai("--docs", docs, stdin=QUESTION + "\n")  # a real log, then held by another writer
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = docai("--docs", docs, stdin=f"{QUESTION}\n{FOLLOWUP}\n")
    finally:
        if holder is not None:
            holder.close()
    assert code == 0
    assert out.count("Resposta") == 2  # both answered
    warnings = [line for line in err.splitlines() if line.startswith("aviso: registro")]
    assert len(warnings) == 1, err  # one warning, not one per question
    assert str(path) in warnings[0] and "--no-log" in warnings[0]
    if damage == "garbage":
        assert "mova-o para outro lugar" in warnings[0]
        assert path.read_bytes().startswith(b"not a database at all")  # never overwritten
        code, _, err = docai("log")
        assert code == 2 and "inutilizável" in err and "mova-o para outro lugar" in err
    else:  # nothing to move away: the fix is the program holding it
        assert "em uso por outro programa" in warnings[0] and "feche o programa" in warnings[0]
        assert "mova-o" not in warnings[0]


def test_no_log_and_log_false_write_nothing(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    code, out, _ = docai("--docs", docs, "--no-log", stdin=QUESTION + "\n")
    assert code == 0 and "Resposta 1." in out
    assert not log_file(tmp_path).exists()
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("log = false\n", encoding="utf-8")
    code, out, _ = docai("--docs", docs, stdin=QUESTION + "\n")
    assert code == 0 and "Resposta" in out
    assert not log_file(tmp_path).exists()
    code, out, err = docai("--docs", docs, "-c", stdin=QUESTION + "\n")
    assert code == 0 and "O registro está desligado" in err
    code, out, _ = docai("config")
    assert re.search(r"log\s+off\s+arquivo", out)
    config.write_text("log = 3\n", encoding="utf-8")
    code, _, err = docai("--docs", docs, stdin=QUESTION + "\n")
    assert code == 2 and "log = false" in err


def test_continuar_is_for_the_repl_and_ask_only(
    docai: InProcessDocai, sample_docs: Path
) -> None:
    code, _, err = docai("-c", "search", "pip", "--docs", sample_docs)
    assert code == 2 and "valem para o modo interativo e para ask, não para search" in err


def test_docai_ask_is_logged_and_continued_by_the_repl(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    assert docai("ask", QUESTION, "--docs", docs).returncode == 0
    [entry] = json.loads(docai("log", "--json").stdout)
    assert (entry["question"], entry["answer"]) == (QUESTION, "Resposta 1.")
    code, _, err = docai("--docs", docs, "-c", stdin=FOLLOWUP + "\n")
    assert code == 0 and "Retomando a conversa" in err
    assert chat_turns(fake.chat_requests[-1]) == [("user", QUESTION), ("assistant", "Resposta 1.")]


def test_two_docai_processes_log_at_once_without_losing_an_exchange(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    questions = "".join(f"{QUESTION} ({n})\n" for n in range(4))
    env = docai_env(tmp_path, fake.url)
    docai.use_env(tmp_path, fake.url)
    docai("index", "--docs", docs)  # one index first: the two runs only read it
    runs = [subprocess.Popen([DOCAI, "--docs", str(docs)], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    results = [run.communicate(questions, timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], results
    assert all("aviso" not in err for _, err in results)
    logged = json.loads(docai("log", "--json", "-n", "0").stdout)
    assert len(logged) == 8
    assert sorted({entry["session"] for entry in logged}) == [1, 2]
    for session in (1, 2):
        asked = [e["question"] for e in logged if e["session"] == session]
        assert asked == [f"{QUESTION} ({n})" for n in range(4)]  # in order, none lost


def test_info_says_how_much_of_the_collection_is_embedded(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai, dense_on: None
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    code, out, err = docai("--docs", docs, stdin=f"/info\n{QUESTION}\n/info\n")
    assert code == 0, err
    before, after = out.split("docai> /info")[1:]
    assert "por significado multilingual-e5-small, embutido; 0 de 4 trecho(s) com embeddings" \
        " (0%)" in before
    # A question embeds a window of each of its few best candidates, not the collection,
    # and /info says answers may improve as the rest is embedded.
    assert re.search(r"[1-4] de 4 trecho\(s\) com embeddings \(\d+%\); as respostas podem "
                     r"melhorar", after), after


def test_conversations_are_named_listed_and_deleted_with_one_numbering(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    lines = [QUESTION, "/nova", "Qual é o padrão de --num-ctx?",
             "/sessoes nomear 1 instalação", "/sessoes apagar 2", "/sessoes apagar 2 sim",
             "/sessoes", "/sessoes apagar 7"]
    code, out, err = docai("--docs", docs, stdin="\n".join(lines) + "\n")
    assert code == 0, err
    assert "A conversa #1 agora se chama instalação." in out
    assert "Confirme com /sessoes apagar 2 sim" in out
    assert "Conversa #2 apagada do registro (1 pergunta(s))." in out
    listing = out.split("docai> /sessoes\n", 1)[1]
    assert re.search(r"#1 .* 1 pergunta\(s\)  «instalação»", listing)
    assert "#2" not in listing.split("docai>", 1)[0]
    assert "não há conversa #7 com esta pasta" in out
    logged = json.loads(docai("log", "--json").stdout)
    assert [e["session"] for e in logged] == [1]  # the same number everywhere
    text = docai("log").stdout
    assert text.startswith("── conversa #1 «instalação» ──\n")


def test_docai_log_deletes_and_clears_only_when_confirmed(
    tmp_path: Path, fake: FakeOllama, docai: InProcessDocai
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake.url)
    lines = [QUESTION, "/nova", "Qual é o padrão de --num-ctx?", "/nova", "E o modelo?"]
    assert docai("--docs", docs, stdin="\n".join(lines) + "\n").returncode == 0
    refused = docai("log", "--delete", "2")  # a script, no terminal to ask on
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert [e["session"] for e in json.loads(docai("log", "--json").stdout)] == [1, 2, 3]
    deleted = docai("log", "--delete", "2", "--yes")
    assert deleted.returncode == 0 and "Apagadas 1 pergunta(s)" in deleted.stdout
    assert [e["session"] for e in json.loads(docai("log", "--json").stdout)] == [1, 3]
    missing = docai("log", "--delete", "9", "--yes")
    assert missing.returncode == 2 and "não há conversa #9" in missing.stderr
    assert docai("log", "--rename", "3", "modelo").stdout.startswith("A conversa #3")
    cleared = docai("log", "--clear", "--yes")
    assert cleared.returncode == 0 and "Apagadas 2 pergunta(s)" in cleared.stdout
    assert json.loads(docai("log", "--json").stdout) == []
    for stored in (tmp_path / "data" / "docai").glob("log.sqlite3*"):  # the WAL too
        assert b"Qual \xc3\xa9 o padr" not in stored.read_bytes(), stored  # overwritten


def test_a_log_written_before_names_is_upgraded_in_place(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    folder = tmp_path / "data" / "docai"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "log.sqlite3") as db:  # the schema of version 1, by hand
        db.executescript(
            "CREATE TABLE sessions (id INTEGER PRIMARY KEY, collection TEXT NOT NULL,"
            " started_at TEXT NOT NULL);"
            "CREATE TABLE exchanges (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL"
            " REFERENCES sessions(id), asked_at TEXT NOT NULL, collection TEXT NOT NULL,"
            " model TEXT NOT NULL, status TEXT NOT NULL, question TEXT NOT NULL,"
            " answer TEXT NOT NULL, sources TEXT NOT NULL, searchable TEXT NOT NULL);"
            "INSERT INTO sessions VALUES (1, '/d', '2026-12-01T10:00:00Z');"
            "INSERT INTO exchanges VALUES (1, 1, '2026-12-01T10:00:00Z', '/d', 'm',"
            " 'answered', 'Pergunta antiga?', 'Resposta.', '[]', 'pergunta antiga resposta');"
            "PRAGMA user_version = 1;")
    renamed = docai("log", "--rename", "1", "antiga")
    assert renamed.returncode == 0, renamed.stderr
    assert docai("log").stdout.startswith("── conversa #1 «antiga» ──\n")
    assert "Pergunta antiga?" in docai("log").stdout
