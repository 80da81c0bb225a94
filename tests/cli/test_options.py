"""Options as a user types them: server addresses and numeric limits, checked before any work.

Every case runs `docai` through `cli.main` in this process (argparse's own exits included).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai, Result
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs


@pytest.fixture
def run_docai(docai: InProcessDocai, tmp_path: Path):
    """`docai ARGS --docs <sample docs>`, with OLLAMA_HOST at `url` (nothing listens at :9)."""

    def run(*args: str, url: str = "http://127.0.0.1:9", stdin: str = "") -> Result:
        docs = write_docs(tmp_path / "docs")
        docai.use_env(tmp_path, url)
        return docai(*args, "--docs", docs, stdin=stdin)

    return run


def test_ollama_url_without_scheme_is_read_like_ollama_host(
    run_docai, fake_ollama: FakeOllama
) -> None:
    host_port = fake_ollama.url.removeprefix("http://")
    result = run_docai("ask", QUESTION, "--ollama-url", host_port)
    assert result.returncode == 0, result.stderr
    assert REPLY in result.stdout
    assert len(fake_ollama.chat_requests) == 1


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:11434", "http://127.0.0.1:99999", "http://",
                                 "http://exa mple:11434"])
def test_a_malformed_server_address_fails_at_once_naming_it(run_docai, url: str) -> None:
    result = run_docai("ask", QUESTION, "--ollama-url", url)
    assert result.returncode == 2
    assert "--ollama-url: endereço inválido" in result.stderr
    assert url in result.stderr and "http://127.0.0.1:11434" in result.stderr
    assert "Ele está rodando?" not in result.stderr  # not mistaken for a server that is down


def test_a_bad_ollama_host_does_not_block_the_openai_backend(run_docai) -> None:
    env_url = "ftp://nowhere"
    result = run_docai("search", "pip", "--backend", "openai", url=env_url)
    assert result.returncode == 0, result.stderr


def test_a_malformed_openai_base_url_fails_naming_it(run_docai) -> None:
    result = run_docai("ask", QUESTION, "--backend", "openai", "--base-url", "localhost")
    assert result.returncode == 2
    assert "--base-url: endereço inválido 'localhost'" in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("-k", "21", "-k/--top-k deve ser de 1 a 20, recebi 21"),
        ("-k", "0", "-k/--top-k deve ser de 1 a 20, recebi 0"),
        ("--num-ctx", "100000000", "--num-ctx deve ser de 512 a 1048576 tokens"),
        ("--temperature", "50", "--temperature deve ser um número de 0 a 2"),
    ],
)
def test_out_of_range_numbers_are_refused_with_the_range(
    run_docai, option: str, value: str, expected: str
) -> None:
    result = run_docai("search", "pip", option, value)
    assert result.returncode == 2
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_a_question_in_several_words_is_asked_whole(run_docai, fake_ollama: FakeOllama) -> None:
    result = run_docai("ask", "como", "instalo", "o", "docai", "com", "pip?",
                       url=fake_ollama.url)
    assert result.returncode == 0, result.stderr
    assert "<question>\ncomo instalo o docai com pip?\n</question>" in (
        fake_ollama.chat_requests[0]["messages"][1]["content"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["search", "pip", "-k", "abc"],
         "-k/--top-k: valor inválido 'abc' (esperava um número inteiro)"),
        (["search", "pip", "--retrieval", "dense"],
         "--retrieval: valor inválido 'dense' (escolha entre 'hybrid', 'tfidf', 'bm25')"),
        (["search", "pip", "--frobnicate"], "opção desconhecida --frobnicate"),
        (["search", "pip", "--topk", "3"], "opção desconhecida --topk; você quis dizer --top-k?"),
        (["search", "pip", "-q", "-v"], "-v/--verbose não combina com -q/--quiet"),
        (["search", "pip", "--min-coverage", "2"],
         "--min-coverage/--min-score: é a parte da pergunta que os trechos devem cobrir, de 0 "
         "a 1; recebi 2 (tente 0.6)"),
        (["ask", "pip", "--model", ""],
         "-m/--model: '' não é um nome de modelo (um nome sem espaços, como deepseek-r1)"),
        (["ask", "pip", "--model", "a b"], "-m/--model: 'a b' não é um nome de modelo"),
        (["search", "pip", "--embed-model", " "], "--embed-model: ' ' não é um nome de modelo"),
        (["ask"], "falta o argumento PERGUNTA"),
        (["ask", "-"], "a entrada padrão chegou vazia"),
        (["ask", "-", "extra"], "- lê a pergunta da entrada padrão e vem sozinho"),
        (["index", "--json"], "--json vale para ask, search, eval, log e status, não para index"),
        (["search", "  "], "a pergunta está vazia"),
    ],
)
def test_usage_errors_are_one_line_in_portuguese(
    run_docai, args: list[str], expected: str
) -> None:
    result = run_docai(*args)
    assert result.returncode == 2
    assert f"docai: erro: {expected}" in result.stderr
    assert "usage:" not in result.stderr and "error:" not in result.stderr


def test_a_mistyped_option_before_a_folder_is_named_not_the_folder(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    """argparse alone takes the folder after an unknown option for the command."""
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    result = docai("--dcos", docs, "search", "pip")
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        "docai: erro: opção desconhecida --dcos; você quis dizer --docs?")


def test_a_bad_setting_from_the_environment_or_the_file_names_where_it_came_from(
    docai: InProcessDocai, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_docs(tmp_path / "docs")
    docai.use_env(tmp_path, "bad:xx")  # OLLAMA_HOST
    result = docai("search", "pip", "--docs", docs)
    assert result.returncode == 2
    assert "a variável de ambiente OLLAMA_HOST='bad:xx' não é válida" in result.stderr
    assert "--ollama-url" not in result.stderr  # the user did not type it

    docai.use_env(tmp_path, "http://127.0.0.1:9")
    monkeypatch.setenv("DOCAI_DOCS", str(tmp_path / "gone"))
    result = docai("search", "pip")
    assert result.returncode == 2
    assert f"{tmp_path / 'gone'} não existe; ela vem de: variável de ambiente (DOCAI_DOCS)" in (
        result.stderr)

    monkeypatch.delenv("DOCAI_DOCS")
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'docs = "{tmp_path / "elsewhere"}"\n', encoding="utf-8")
    result = docai("search", "pip")
    assert result.returncode == 2
    assert f"ela vem de: arquivo de configuração ({config})" in result.stderr


@pytest.mark.parametrize("command", [[], ["ask"], ["search"], ["index"], ["eval"]])
def test_help_is_in_portuguese(docai: InProcessDocai, command: list[str]) -> None:
    result = docai(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith(" ".join(["uso: docai", *command]))
    assert "opções:" in result.stdout and "mostra esta ajuda e sai" in result.stdout
    for english in ("usage:", "options:", "show this help", "positional arguments"):
        assert english not in result.stdout


def test_m_chooses_the_model_as_in_llm_and_ollama(run_docai, fake_ollama: FakeOllama) -> None:
    result = run_docai("ask", QUESTION, "-m", "llama3.2", "--no-think", url=fake_ollama.url)
    assert result.returncode == 0, result.stderr
    assert fake_ollama.chat_requests[-1]["model"] == "llama3.2"


@pytest.mark.parametrize(("command", "own", "foreign"), [
    ("log", ["-n N", "--search", "--docs", "--json"],
     ["--chunk-tokens", "--temperature", "--model", "--retrieval", "--no-log"]),
    ("search", ["--retrieval", "--dense", "-k N", "--json"],
     ["--temperature", "--model", "--num-ctx", "--system", "--no-log"]),
    ("index", ["--embed", "--rebuild", "--chunk-tokens"], ["--temperature", "--system"]),
    ("ask", ["--system", "--max-tokens", "-m NOME, --model NOME", "--json", "--no-log"], []),
])
def test_each_subcommand_help_lists_only_its_own_options(
    docai: InProcessDocai, command: str, own: list[str], foreign: list[str]
) -> None:
    code, out, _ = docai(command, "--help")
    assert code == 0
    for option in own:
        assert option in out, option
    for option in foreign:
        assert option not in out, option


def test_system_adds_the_users_instructions_after_docais_rules(
    run_docai, fake_ollama: FakeOllama
) -> None:
    result = run_docai("ask", QUESTION, "--system", "Responda em tópicos curtos.",
                       url=fake_ollama.url)
    assert result.returncode == 0, result.stderr
    system = fake_ollama.chat_requests[-1]["messages"][0]
    assert system["role"] == "system"
    rules = system["content"].index("Answer only with information found in the sources")
    mine = system["content"].index("Responda em tópicos curtos.")
    assert rules < mine  # the grounded rules first; they win


def test_set_system_changes_the_instructions_for_the_next_questions(
    run_docai, fake_ollama: FakeOllama
) -> None:
    lines = ["/set system Sempre comece com OK.", QUESTION, "/set system off",
             "Como instalo com pipx?"]
    result = run_docai(url=fake_ollama.url, stdin="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    first, second = (request["messages"][0]["content"] for request in fake_ollama.chat_requests)
    assert "Sempre comece com OK." in first
    assert "Sempre comece com OK." not in second
    assert "system agora: 'Sempre comece com OK.'." in result.stdout
