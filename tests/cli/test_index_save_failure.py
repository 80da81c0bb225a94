"""`docai index` fails (exit 2) when the index it built cannot be saved, after saying what it
built and why saving failed; the other commands still answer, from the index in memory,
and warn once.

Exit 2, as for every problem the user fixes (here: a writable `--cache-dir`); 1 is kept for
a model that failed. A full disk is a real `docai` process whose file-size limit
(RLIMIT_FSIZE) makes the cache write fail as a full disk does, with an OSError.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docai_cli import InProcessDocai

DOCAI = [sys.executable, "-m", "docai"]


def _docs(root: Path) -> Path:
    root.mkdir()
    (root / "instalar.md").write_text(
        "# Instalação\n\nRode `pip install docai` num ambiente virtual.\n\n"
        "## Ollama\n\nInicie o servidor com `ollama serve` na porta 11434.\n",
        encoding="utf-8",
    )
    (root / "cache.md").write_text(
        "# Cache\n\nO índice fica na pasta de cache do usuário; mude com DOCAI_CACHE_DIR.\n",
        encoding="utf-8",
    )
    return root


def _unusable_cache(tmp_path: Path, kind: str) -> Path:
    blocker = tmp_path / "um-arquivo"
    blocker.write_text("x", encoding="utf-8")
    return blocker if kind == "is a file" else blocker / "cache"


def _assert_failed_save(code: int, out: str, err: str) -> None:
    assert code == 2
    assert "2 arquivo(s) indexado(s)" in out  # what was built
    assert "2 novo(s)" in out
    lines = err.splitlines()
    assert any("não consegui salvar o índice" in line for line in lines)  # why
    assert lines[-1].startswith("docai: erro:") and "não salvo" in lines[-1]
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["is a file", "below a file"])
def test_index_exits_2_when_the_cache_folder_is_unusable(
    docai: InProcessDocai, tmp_path: Path, kind: str
) -> None:
    docs = _docs(tmp_path / "docs")
    cache_dir = _unusable_cache(tmp_path, kind)
    _assert_failed_save(*docai("index", "--docs", docs, "--cache-dir", cache_dir))


def _limit_file_size() -> None:
    """In the child: any write past 4 KB fails with EFBIG (Python ignores SIGXFSZ)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_index_exits_2_when_the_disk_is_full(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    for number in range(40):  # enough text that the arrays exceed the 4 KB limit
        (docs / f"pagina{number:02d}.md").write_text(
            f"# Página {number}\n\n" + " ".join(f"palavra{number}x{k}" for k in range(60)),
            encoding="utf-8",
        )
    command = [*DOCAI, "index", "--docs", str(docs), "--cache-dir", str(tmp_path / "cache")]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=_limit_file_size, check=False)
    assert done.returncode == 2, done.stderr
    assert "42 arquivo(s) indexado(s)" in done.stdout
    assert any("não consegui salvar o índice" in line and "File too large" in line
               for line in done.stderr.splitlines())
    assert done.stderr.splitlines()[-1].startswith("docai: erro:")
    # Nothing half-written is left to be mistaken for an index.
    assert not list((tmp_path / "cache").rglob("*.tmp"))
    assert not list((tmp_path / "cache").rglob("current"))


def test_index_still_exits_0_when_it_saves(docai: InProcessDocai, tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    code, out, err = docai("index", "--docs", docs, "--cache-dir", tmp_path / "cache")
    assert (code, err) == (0, "")
    assert "2 arquivo(s) indexado(s)" in out


def test_search_answers_from_memory_and_warns_once(docai: InProcessDocai, tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    cache_dir = _unusable_cache(tmp_path, "is a file")
    code, out, err = docai("search", "ollama serve porta", "--docs", docs, "--cache-dir", cache_dir)
    assert code == 0
    assert "instalar.md" in out
    about_the_cache = [line for line in err.splitlines() if "cache" in line]
    assert len(about_the_cache) == 1 and "não consegui salvar o índice" in about_the_cache[0]
    assert "docai: erro" not in err
