"""`docai search` as scripts and users run it: JSON schema, JSON Lines from stdin, options.

The commands run through `cli.main` in this process, stdin included; a stdin closed at
start-up (`docai search <&-`) is the one case that needs a real `docai` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    (root / "instalar.md").write_text(
        "# Instalação\n\nRode `pip install docai` num ambiente virtual.\n\n"
        "## Ollama\n\nInicie o servidor com `ollama serve` na porta 11434.\n\n"
        "## Modelos\n\nBaixe o modelo com `ollama pull deepseek-r1`.\n",
        encoding="utf-8",
    )
    (root / "guia").mkdir()
    (root / "guia" / "cache.html").write_text(
        "<h1>Cache</h1><h2>Onde fica</h2><p>O índice fica na pasta de cache do usuário; "
        "mude com DOCAI_CACHE_DIR.</p>", encoding="utf-8",
    )
    return root


@pytest.fixture
def where(docs: Path, tmp_path: Path) -> list[str]:
    return ["--docs", str(docs), "--cache-dir", str(tmp_path / "cache")]


def test_json_output_is_one_object_with_the_documented_schema(
    docai: InProcessDocai, where: list[str]
) -> None:
    done = docai("search", "onde fica o cache do índice", "--json", "--rebuild", *where)
    assert done.returncode == 0, done.stderr
    assert "--rebuild" in done.stderr  # build notes go to stderr, never into the JSON
    payload = json.loads(done.stdout)  # nothing but that one object on stdout
    assert payload["query"] == "onde fica o cache do índice"
    best = payload["results"][0]
    assert set(best) == {"source", "heading", "text", "score", "coverage", "chunk", "location"}
    assert best["source"] == "guia/cache.html"
    assert best["heading"] == "Cache > Onde fica"
    assert "DOCAI_CACHE_DIR" in best["text"]
    assert isinstance(best["score"], float) and isinstance(best["chunk"], int)
    scores = [hit["score"] for hit in payload["results"]]
    assert scores == sorted(scores, reverse=True)


def test_words_only_each_passage_shows_how_much_of_the_question_it_covers(
    docai: InProcessDocai, where: list[str]
) -> None:
    """Ranked by words alone, the fused scores are ranks (~0.02 for every passage); what the
    output shows is the share of the question each passage holds, which tells the passage
    that answers the whole question from one that shares a word with it."""
    question = "como baixar o modelo com ollama pull"
    shown = docai("search", question, "--dense", "off", "-k", "3", *where)
    assert shown.returncode == 0, shown.stderr
    lines = [line for line in shown.stdout.splitlines() if line[:1].isdigit()]
    assert lines[0].startswith("1. [cobre 100%] instalar.md")
    assert "Modelos" in lines[0]
    shares = [int(line.split("[cobre ")[1].split("%")[0]) for line in lines]
    assert shares[0] > min(shares)  # passages that share a word only cover less of it
    payload = json.loads(docai("search", question, "--dense", "off", "-k", "3", "--json",
                               *where).stdout)
    assert [round(100 * hit["coverage"]) for hit in payload["results"]] == shares


def test_options_before_or_after_the_subcommand_mean_the_same(
    docai: InProcessDocai, where: list[str]
) -> None:
    after = docai("search", "ollama porta", "-k", "1", "--json", *where)
    before = docai(*where, "-k", "1", "--json", "search", "ollama porta")
    assert after.returncode == before.returncode == 0
    assert json.loads(after.stdout) == json.loads(before.stdout)
    assert len(json.loads(after.stdout)["results"]) == 1


def test_questions_from_stdin_give_json_lines(docai: InProcessDocai, where: list[str]) -> None:
    done = docai("search", "--json", *where,
                 stdin="porta do ollama\n\n   \nmodelo deepseek\nxyzzy plugh\n")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    queries = [line["query"] for line in lines]
    assert queries == ["porta do ollama", "modelo deepseek", "xyzzy plugh"]
    assert lines[1]["results"][0]["heading"] == "Instalação > Modelos"
    assert lines[2]["results"] == []


def test_human_output_shows_rank_source_heading_and_snippet(
    docai: InProcessDocai, where: list[str]
) -> None:
    done = docai("search", "baixar modelo deepseek", *where)
    assert done.returncode == 0, done.stderr
    first, snippet = done.stdout.splitlines()[:2]
    assert first.startswith("1. [") and "instalar.md" in first and "Instalação > Modelos" in first
    assert "ollama pull deepseek-r1" in snippet


def test_questions_from_stdin_give_human_blocks(docai: InProcessDocai, where: list[str]) -> None:
    done = docai("search", *where, stdin="porta do ollama\n\nxyzzy plugh\n")
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.split("\n\n")
    assert blocks[0].startswith("» porta do ollama\n1. [")
    assert blocks[1].startswith("» xyzzy plugh\nNenhum trecho relevante")


def test_missing_docs_folder_is_a_clear_error(docai: InProcessDocai, tmp_path: Path) -> None:
    done = docai("search", "x", "--docs", tmp_path / "sumiu", "--cache-dir", tmp_path / "c")
    assert done.returncode == 2
    assert "sumiu" in done.stderr and "--docs" in done.stderr
    assert done.stdout == ""


def test_no_question_and_stdin_closed_is_a_clear_error(where: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "docai", "search", *where],
        stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0),  # as `docai search <&-`
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "entrada padrão" in done.stderr and "Traceback" not in done.stderr


def test_skipped_files_are_counted_with_the_command_that_lists_why(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    """The hint must name this folder and cache: `docai index` alone may open another one."""
    folder = tmp_path / "my docs"
    folder.mkdir()
    (folder / "guia.md").write_text("# Guia\n\nRode `pip install docai`.\n", encoding="utf-8")
    (folder / "vazio.md").write_text("# Só o título\n", encoding="utf-8")
    result = docai("search", "pip", "--docs", folder, "--cache-dir", tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    command = f"docai index --docs '{folder}' --cache-dir {tmp_path / 'cache'}"
    assert f"1 arquivo(s) ignorado(s); `{command}` mostra os motivos" in result.stderr
    again = docai("search", "pip", "--docs", folder, "--cache-dir", tmp_path / "cache")
    assert "ignorado(s)" not in again.stderr  # said once, not at every command
    listed = docai("index", "--docs", folder, "--cache-dir", tmp_path / "cache")
    assert "vazio.md: nenhum texto sobrou depois de remover a marcação (só títulos" in (
        listed.stdout + listed.stderr)
