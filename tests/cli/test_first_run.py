"""A first run without friction: a config file set once, environment variables, the docs
folder found from where docai starts, `docai config`, questions from stdin, a mistyped
command, -q and -v. Each through `cli.main` against a fake Ollama over HTTP, with a real
config file in a temporary config folder (XDG_CONFIG_HOME)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs


def write_config(home: Path, text: str) -> Path:
    path = home / "config" / "docai" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_config_file_sets_docs_model_and_k_and_docai_config_says_so(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama, monkeypatch
) -> None:
    docs = write_docs(tmp_path / "meus docs")
    docai.use_env(tmp_path, fake_ollama.url)
    path = write_config(tmp_path, f'docs = "{docs}"\nmodel = "llama3.2"\nk = 1\n')
    result = docai("ask", QUESTION)  # no --docs, no --model: the file decides
    assert result.returncode == 0, result.stderr
    assert REPLY in result.stdout and "[2]" not in result.stdout
    assert {body["model"] for body in fake_ollama.chat_requests} == {"llama3.2"}

    monkeypatch.setenv("DOCAI_MODEL", "qwen3")
    shown = docai("config", "-k", "4").stdout.splitlines()
    assert shown[0] == f"Arquivo de configuração: {path} (lido)"
    rows = {line.split()[0]: line for line in shown[1:]}
    assert rows["docs"].split(str(docs))[1].strip() == f"arquivo de configuração ({path})"
    assert rows["model"].split()[1:] == ["qwen3", "variável", "de", "ambiente", "(DOCAI_MODEL)"]
    assert rows["k"].split()[1:] == ["4", "opção", "(-k)"]
    assert "ambiente (OLLAMA_HOST)" in rows["server"]
    assert rows["embedder"].split()[1:] == ["multilingual-e5-small", "(embutido)", "padrão"]
    assert rows["dense"].split()[1:] == ["off", "variável", "de", "ambiente", "(DOCAI_DENSE)"]

    docai("ask", QUESTION, "--model", "deepseek-r1")  # the option beats the variable
    assert fake_ollama.chat_requests[-1]["model"] == "deepseek-r1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('modelo = "llama3.2"\n', "tem a chave desconhecida 'modelo' (você quis dizer 'model'?); "
                                  "as chaves válidas são "
                                  "docs, model, server, dense, embedder, k"),
        ("k = 50\n", "valor inválido na chave 'k': 50 (esperava um número inteiro de 1 a 20"),
        ('k = "5"\n', "valor inválido na chave 'k': '5'"),
        ('server = "http://host:99999"\n', "valor inválido na chave 'server'"),
        ("model = llama3.2\n", "não é TOML válido (Invalid value (at line 1, column 9))"),
        ('dense = "talvez"\n', "valor inválido na chave 'dense': 'talvez' (esperava \"on\" ou "
                              "\"off\""),
    ],
)
def test_a_bad_config_file_is_one_error_naming_the_file_the_key_and_the_fix(
    docai: InProcessDocai, tmp_path: Path, text: str, expected: str
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    path = write_config(tmp_path, text)
    result = docai("search", "pip", "--docs", write_docs(tmp_path / "docs"))
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"docai: erro: o arquivo de configuração {path}")
    assert expected in lines[0]
    assert "Corrija" in lines[0] or "corrija" in lines[0]


def test_docai_started_in_a_project_finds_its_docs_folder(
    docai: InProcessDocai, tmp_path: Path, monkeypatch
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    project = tmp_path / "projeto"
    write_docs(project / "docs")
    monkeypatch.chdir(project)
    result = docai("search", "pip")
    assert result.returncode == 0, result.stderr
    assert "guide/install.md" in result.stdout
    rows = [line.split() for line in docai("config").stdout.splitlines()]
    assert ["docs", "docs", "encontrada", "na", "pasta", "atual"] in rows

    monkeypatch.chdir(tmp_path)  # no docs here: the three ways to name one
    result = docai("search", "pip")
    assert result.returncode == 2
    assert "--docs PASTA" in result.stderr and "DOCAI_DOCS" in result.stderr
    assert str(tmp_path / "config" / "docai" / "config.toml") in result.stderr
    monkeypatch.setenv("DOCAI_DOCS", str(project / "docs"))
    assert docai("search", "pip").returncode == 0


@pytest.mark.parametrize("args", [["ask"], ["ask", "-"]])
def test_ask_reads_the_question_from_stdin(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama, args: list[str]
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    result = docai(*args, "--docs", write_docs(tmp_path / "docs"), stdin=QUESTION + "\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(REPLY)
    assert "Como instalo o docai com pip?" in fake_ollama.chat_requests[0]["messages"][-1][
        "content"]


def test_piped_repl_output_is_a_transcript_without_the_interactive_banner(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    result = docai("--docs", write_docs(tmp_path / "docs"), stdin=f"{QUESTION}\n/k 2\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"docai> {QUESTION}\n{REPLY}\n")
    assert "docai> /k 2\nAgora recupero 2 trecho(s)" in result.stdout
    assert "/ajuda mostra os comandos" not in result.stdout + result.stderr
    assert "docai pronto" in result.stderr


def test_a_mistyped_command_gets_the_nearest_one(docai: InProcessDocai) -> None:
    result = docai("serach", "pip")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "docai: erro: comando desconhecido serach; você quis dizer search? "
        "(comandos: ask, search, index, eval, log, mcp, store, status, config)\n")


def test_quiet_shows_only_the_answer_and_verbose_adds_timings_and_passages(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, fake_ollama.url)
    quiet = docai("ask", QUESTION, "--docs", docs, "-q")
    assert quiet.returncode == 0
    assert quiet.stdout == REPLY + "\n" and quiet.stderr == ""
    verbose = docai("ask", QUESTION, "--docs", docs, "--verbose")
    assert verbose.returncode == 0
    assert "Fontes:" in verbose.stdout
    assert "índice: 2 arquivo(s)" in verbose.stderr
    assert "busca: " in verbose.stderr and "[1] " in verbose.stderr
    assert "guide/install.md:3 > Instalação > Com pip (trecho 0)" in verbose.stderr
    assert "tempos: " in verbose.stderr and "tokens/s" in verbose.stderr


def test_dense_is_switched_by_option_variable_or_file_and_a_bad_value_is_named(
    docai: InProcessDocai, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    docs = write_docs(tmp_path / "docs")
    monkeypatch.delenv("DOCAI_DENSE")
    write_config(tmp_path, "dense = false\n")
    shown = {line.split()[0]: line for line in docai("config").stdout.splitlines()[1:]}
    assert shown["dense"].split()[1:3] == ["off", "arquivo"]
    monkeypatch.setenv("DOCAI_DENSE", "on")
    shown = {line.split()[0]: line for line in docai("config").stdout.splitlines()[1:]}
    assert shown["dense"].split()[1:] == ["on", "variável", "de", "ambiente", "(DOCAI_DENSE)"]

    monkeypatch.setenv("DOCAI_DENSE", "talvez")
    bad_variable = docai("search", "pip", "--docs", docs)
    assert bad_variable.returncode == 2
    assert "a variável de ambiente DOCAI_DENSE='talvez' não é válida" in bad_variable.stderr
    bad_option = docai("search", "pip", "--docs", docs, "--dense", "talvez")
    assert bad_option.returncode == 2
    assert "--dense: valor inválido: 'talvez' (use on ou off)" in bad_option.stderr
