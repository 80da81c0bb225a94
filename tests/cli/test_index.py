"""`docai index` as a user runs it: what it reports, damaged caches, concurrent runs.

The commands run through `cli.main` in this process; two runs at once and Ctrl-C (a signal
to the whole process group) need real `docai` processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from docai.index import cache
from docai.retrieval.search_index import open_index
from docai.settings import Settings
from tests.support.docai_cli import InProcessDocai

DOCAI = [sys.executable, "-m", "docai"]


def _docs(root: Path) -> Path:
    root.mkdir()
    (root / "instalar.md").write_text(
        "# Instalação\n\nRode `pip install docai` num ambiente virtual.\n\n"
        "## Ollama\n\nInicie o servidor com `ollama serve` na porta 11434.\n",
        encoding="utf-8",
    )
    (root / "guia").mkdir()
    (root / "guia" / "cache.html").write_text(
        "<h1>Cache</h1><p>O índice fica na pasta de cache do usuário.</p>", encoding="utf-8"
    )
    (root / "quebrado.md").write_bytes(b"\x00\x00\x00binario")
    return root


def test_index_reports_counts_changes_skips_and_timings(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    code, out, _ = docai("index", "--docs", docs, "--cache-dir", tmp_path / "cache")
    assert code == 0
    assert "2 arquivo(s) indexado(s)" in out
    assert "3 novo(s)" in out
    assert "quebrado.md:" in out  # the skipped file, with its reason
    assert "tempo:" in out

    (docs / "instalar.md").write_text("# Instalação\n\nAgora com uv.\n", encoding="utf-8")
    (docs / "guia" / "cache.html").unlink()
    code, out, _ = docai("--docs", docs, "index", "--cache-dir", tmp_path / "cache")
    assert code == 0
    assert "1 alterado(s), 1 removido(s), 1 sem mudança" in out


def test_damaged_cache_is_reported_in_one_line_then_trusted_again(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    where = ("--docs", docs, "--cache-dir", tmp_path / "cache")
    assert docai("index", *where)[0] == 0
    (folder,) = (tmp_path / "cache").iterdir()
    arrays = folder / cache.ARRAYS_NAME
    arrays.write_bytes(arrays.read_bytes()[:64])

    code, _, err = docai("index", *where)
    assert code == 0
    assert len(err.splitlines()) == 1
    assert "arrays.npz" in err and "reconstruindo" in err

    code, out, err = docai("index", *where)
    assert err == ""
    assert "0 novo(s)" in out

    code, _, err = docai("index", *where, "--chunk-tokens", "128")
    assert len(err.splitlines()) == 1 and "max_tokens" in err


def test_two_concurrent_runs_leave_a_valid_cache(docai: InProcessDocai, tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    cache_dir = tmp_path / "cache"
    command = [*DOCAI, "index", "--docs", str(docs), "--cache-dir", str(cache_dir)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    for process in runs:
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
    code, out, err = docai("index", "--docs", docs, "--cache-dir", cache_dir)
    assert err == ""  # no "rebuilt because ..." line: the cache is valid
    assert "0 novo(s), 0 alterado(s), 0 removido(s), 3 sem mudança" in out
    question = "servidor ollama porta"
    cached, _ = open_index(Settings(docs_dir=docs, cache_dir=cache_dir))
    fresh, _ = open_index(Settings(docs_dir=docs, cache_dir=tmp_path / "c2"))
    assert cached.search(question, 3) == fresh.search(question, 3) != []


def test_missing_docs_folder_is_a_clear_error_without_traceback(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    missing = tmp_path / "não-existe"
    done = docai("index", "--docs", missing, "--cache-dir", tmp_path / "cache")
    assert done.returncode == 2
    assert str(missing) in done.stderr and "não existe" in done.stderr
    assert "Traceback" not in done.stderr


def test_empty_docs_folder_says_so(docai: InProcessDocai, tmp_path: Path) -> None:
    (tmp_path / "vazia").mkdir()
    code, out, err = docai("index", "--docs", tmp_path / "vazia", "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "não tem documentos" in err
    assert "0 arquivo(s) indexado(s)" in out


def test_folder_of_other_file_types_names_them(docai: InProcessDocai, tmp_path: Path) -> None:
    docs = tmp_path / "office"
    (docs / "api").mkdir(parents=True)
    for name in ("index.pages", "usage.pages", "api/module.pages", "logo.png", "Makefile"):
        (docs / name).write_text("x")
    for command in ("index", "search"):
        args = [command] + (["proxy"] if command == "search" else [])
        code, _, err = docai(*args, "--docs", docs, "--cache-dir", tmp_path / "c")
        assert code == 2, command
        assert "só arquivos de outros tipos: 3 .pages; 1 de cada: .png, sem extensão" in err
        assert "Traceback" not in err


def test_folder_whose_documents_all_lack_text_points_to_the_reasons(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vazio.md").write_text("   \n")
    (docs / "binario.md").write_bytes(b"\x00\x01\x02")
    code, _, err = docai("search", "proxy", "--docs", docs, "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "nenhum dos 2 documento(s)" in err and "docai index" in err


def wait_for_workers(pid: int) -> None:
    """Until the indexer's worker processes exist and each has set itself up (it ignores
    Ctrl-C, as `start_worker` makes it): the parse is under way in them (an event, not a
    guess of how long start-up takes on this machine). A worker still starting when Ctrl-C
    comes is not what this test is about."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    deadline = time.monotonic() + 120
    while not _workers_ready(children.read_text().split()):
        assert time.monotonic() < deadline, "no worker process started"
        time.sleep(0.05)


def _workers_ready(pids: list[str]) -> bool:
    sigint = 1 << (signal.SIGINT - 1)
    for child in pids:
        try:
            status = Path(f"/proc/{child}/status").read_text()
        except OSError:  # ended meanwhile
            return False
        ignored = next(line for line in status.splitlines() if line.startswith("SigIgn:"))
        if not int(ignored.split()[1], 16) & sigint:
            return False
    return bool(pids)


def test_ctrl_c_twice_while_indexing_ends_at_once_and_keeps_the_old_cache(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "velho.md").write_text("# Velho\n\nO índice anterior.\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    assert docai("index", "--docs", docs, "--cache-dir", cache_dir).returncode == 0
    saved = {p.name: p.read_bytes() for p in cache_dir.rglob("*") if p.is_file()}
    body = "".join(f"<h2>Parte {i}</h2><p>palavra{i} sobre o servidor e a porta " * 20 + "</p>"
                   for i in range(40))
    for n in range(400):  # enough work for the workers to be busy when Ctrl-C comes
        (docs / f"pagina{n:03}.html").write_text(
            f"<html><body><h1>Página {n}</h1>{body}</body></html>", encoding="utf-8")
    process = subprocess.Popen(
        [*DOCAI, "index", "--docs", str(docs), "--cache-dir", str(cache_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    wait_for_workers(process.pid)
    assert process.poll() is None, "indexing ended before it could be interrupted"
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole process group
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise AssertionError("docai index hung after Ctrl-C") from None
    assert process.returncode in (130, -signal.SIGINT)
    assert "Traceback" not in err
    assert {p.name: p.read_bytes() for p in cache_dir.rglob("*") if p.is_file()} == saved
