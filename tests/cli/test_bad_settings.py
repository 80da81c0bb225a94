"""Settings a hostile or unlucky user gives: every folder read one way whatever its origin,
and every bad value one `docai: erro:` line with exit status 2, never "erro inesperado"
(the real `docai` process)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import REPLY, write_docs


def run(home: Path, url: str, *args: str | Path, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, *args], env={**docai_env(home, url), **(env or {})},
                          capture_output=True, text=True, timeout=120, check=False,
                          cwd=cwd or home)


def one_error_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("docai: erro: "), done.stderr
    assert "inesperado" not in done.stderr
    for word in words:
        assert word in lines[0]


def write_config(home: Path, text: str) -> None:
    config = home / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


def test_docai_cache_dir_is_read_like_the_option(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    docs = write_docs(tmp_path / "docs")
    here = tmp_path / "here"
    here.mkdir()
    home = tmp_path / "home"  # HOME in docai_env
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "index",
               env={"DOCAI_CACHE_DIR": "~/c"}, cwd=here)
    assert done.returncode == 0, done.stderr
    assert list(here.iterdir()) == []  # no folder named "~" where the user stood
    assert (home / "c").is_dir()
    assert "~" not in done.stdout + done.stderr
    blank = run(tmp_path, fake_ollama.url, "--docs", docs, "index",
                env={"DOCAI_CACHE_DIR": "   "}, cwd=here)
    assert blank.returncode == 0, blank.stderr
    assert list(here.iterdir()) == []  # blank is unset, as every docai variable


@pytest.mark.parametrize("where", ["--docs", "--cache-dir", "DOCAI_DOCS", "DOCAI_CACHE_DIR",
                                   "config"])
def test_a_home_folder_of_no_user_is_one_error_line(
    tmp_path: Path, fake_ollama: FakeOllama, where: str
) -> None:
    docs = write_docs(tmp_path / "docs")
    bad = "~nosuchuser-docai/x"
    if where.startswith("--"):
        args: list[str | Path] = ["--docs", docs, where, bad] if where != "--docs" else [
            "--docs", bad]
        done = run(tmp_path, fake_ollama.url, *args, "search", "pip")
    elif where == "config":
        write_config(tmp_path, f'docs = "{bad}"\n')
        done = run(tmp_path, fake_ollama.url, "search", "pip")
    else:
        extra = [] if where == "DOCAI_DOCS" else ["--docs", docs]
        done = run(tmp_path, fake_ollama.url, *extra, "search", "pip", env={where: bad})
    one_error_line(done, "nosuchuser-docai")
    if where != "config":
        assert where in done.stderr  # says where the value came from


def test_a_path_too_long_for_the_system_is_one_error_line(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    long_path = "a" * 10_000
    one_error_line(run(tmp_path, fake_ollama.url, "search", "pip",
                       env={"DOCAI_DOCS": long_path}), "DOCAI_DOCS", "longo demais")
    write_config(tmp_path, f'docs = "{long_path}"\n')
    done = run(tmp_path, fake_ollama.url, "search", "pip")
    one_error_line(done, "longo demais")
    assert len(done.stderr) < 1000  # the value is quoted, not dumped whole


def test_a_nul_in_the_config_docs_names_no_other_folder(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    write_docs(tmp_path / "d")
    write_config(tmp_path, f'docs = "{tmp_path / "d"}\\u0000/elsewhere"\n')
    one_error_line(run(tmp_path, fake_ollama.url, "search", "pip"), "nulo")


def test_a_newline_in_docai_docs_stays_on_the_error_line(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    one_error_line(run(tmp_path, fake_ollama.url, "search", "pip",
                       env={"DOCAI_DOCS": "docs\nfalsa linha"}), "DOCAI_DOCS", r"docs\nfalsa")


def test_a_config_nested_beyond_the_parser_is_one_error_line(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    write_config(tmp_path, "docs = " + "[" * 100_000 + "\n")
    one_error_line(run(tmp_path, fake_ollama.url, "--docs", docs, "search", "pip"),
                   "config.toml", "fundo demais")


@pytest.mark.parametrize(("line", "words"), [
    ("[" * 100_000, ("linha 1", "fundo demais")),  # nested beyond the parser
    ('{"id": "a", "question": "Como instalo?", "gold": 3}',  # its example, formatted
     ('{"source": ..., "answer": ...}',)),
])
def test_a_bad_eval_line_is_one_error_line(
    tmp_path: Path, fake_ollama: FakeOllama, line: str, words: tuple[str, ...]
) -> None:
    docs = write_docs(tmp_path / "docs")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(line + "\n", encoding="utf-8")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "eval", qa)
    one_error_line(done, *words)
    assert "{{" not in done.stderr


def test_a_read_timeout_beyond_a_day_is_refused_before_any_work(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = write_docs(tmp_path / "docs")
    done = run(tmp_path, fake_ollama.url, "--docs", docs, "--read-timeout", "99999999999",
               "ask", "Como instalo o docai com pip?")
    one_error_line(done, "--read-timeout")
    assert fake_ollama.chat_requests == []
    assert not (tmp_path / "cache").exists()  # refused before the index was opened
    fine = run(tmp_path, fake_ollama.url, "--docs", docs, "--read-timeout", "86400", "-q",
               "ask", "Como instalo o docai com pip?")
    assert fine.returncode == 0 and REPLY in fine.stdout
    assert os.path.isdir(tmp_path / "cache")
