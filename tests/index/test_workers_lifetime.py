"""Killing only `docai index` (as an IDE, `kill` or the OOM killer does) ends its worker
processes too: none is left waiting on a dead parent, holding its memory, for good.

A real `docai index` process over a folder big enough to be parsed by workers; the workers
are found through /proc as the children of that process, before it is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docai.index.build import MIN_FILES_FOR_WORKERS
from tests.support.docai_cli import DOCAI
from tests.support.processes import alive

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="finds the workers through /proc"
)
# Enough files for two workers, and enough text that parsing them takes seconds.
FILES = 8 * MIN_FILES_FOR_WORKERS
PARAGRAPHS = 600
DEADLINE_S = 60.0
GONE_WITHIN_S = 5.0


def write_docs(folder: Path) -> Path:
    folder.mkdir()
    for number in range(FILES):
        sections = [
            f"## Seção {part}\n\nO servidor {number} guarda o cache {part} em disco; "
            f"para configurar o parâmetro `opcao_{number}_{part}`, edite o arquivo "
            f"`/etc/servico/{part}.conf` e reinicie com *cuidado* o **serviço**.\n\n"
            f"- item {part} da lista\n- outro item com [um link](http://x/{part})\n"
            for part in range(PARAGRAPHS)
        ]
        (folder / f"pagina{number:03d}.md").write_text(
            f"# Página {number}\n\n" + "\n".join(sections), encoding="utf-8"
        )
    return folder


def children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listing:
                found.update(int(child) for child in listing.read().split())
    except OSError:
        pass
    return found


def wait_for(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP],
                         ids=["KILL", "TERM", "HUP"])
def test_workers_end_when_the_docai_process_is_killed(tmp_path: Path, how: int) -> None:
    docs = write_docs(tmp_path / "docs")
    process = subprocess.Popen(
        [DOCAI, "index", "--docs", str(docs), "--cache-dir", str(tmp_path / "cache")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    workers: set[int] = set()
    try:
        assert wait_for(lambda: len(children(process.pid)) >= 2, DEADLINE_S), (
            "no worker processes appeared"
        )
        workers = children(process.pid)
        assert process.poll() is None, "the build ended before it could be interrupted"
        os.kill(process.pid, how)
        process.wait(timeout=DEADLINE_S)
        assert wait_for(lambda: not any(alive(pid) for pid in workers), GONE_WITHIN_S), (
            f"workers {sorted(pid for pid in workers if alive(pid))} outlived their parent"
        )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in workers:  # only if the test failed: never leave them running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if process.stderr is not None:
            process.stderr.close()
