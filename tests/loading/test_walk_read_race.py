"""The folder changes between the walk and the read, through the real `docai index`: a
sub-folder swapped for a link to a folder outside, a file swapped for a pipe. Nothing
outside the docs folder may reach the saved index, and nothing may hang.

The swap lands exactly between the two, without a clock: the test holds the cache's lock,
which `docai index` takes (shared) after its walk and before it reads any file; once the
kernel lists docai waiting for that lock (/proc/locks), the folder is changed, and the
lock let go."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.sample_docs import write_docs

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="sees the lock wait in /proc/locks"),
              pytest.mark.timeout(600)]
NO_SERVER = "http://127.0.0.1:9"
SECRET = "segredofora"
WAIT_S = 240.0  # an event that has not come by then never will


def waiting_for(lock: Path) -> bool:
    """Whether some process waits for a lock on `lock` (a `->` line of /proc/locks)."""
    inode = f":{os.stat(lock).st_ino} "
    with open("/proc/locks", encoding="ascii") as locks:
        return any("->" in line and inode in line for line in locks)


def index_with_a_swap(tmp_path: Path, docs: Path, swap) -> subprocess.CompletedProcess[str]:
    """`docai index` (a second time), with `swap()` run after its walk, before its reads."""
    env = docai_env(tmp_path, NO_SERVER)
    first = subprocess.run([DOCAI, "index", "--docs", str(docs)], capture_output=True,
                           text=True, env=env, timeout=WAIT_S)
    assert first.returncode == 0, first.stderr
    (lock,) = (tmp_path / "cache").glob("*/lock")
    for path in docs.rglob("*.md"):  # changed since: every file must be read again
        path.write_text(path.read_text(encoding="utf-8") + "\nMais.\n", encoding="utf-8")
    with lock.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        second = subprocess.Popen([DOCAI, "index", "--docs", str(docs)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + WAIT_S
        while not waiting_for(lock) and time.monotonic() < deadline:
            assert second.poll() is None, second.communicate()
            time.sleep(0.02)
        assert waiting_for(lock), "docai index never waited for the cache's lock"
        swap()
    try:
        out, err = second.communicate(timeout=WAIT_S)
    finally:
        second.kill()
    return subprocess.CompletedProcess(second.args, second.returncode, out, err)


def saved_text(cache: Path) -> bytes:
    """Every array of the saved index, as bytes (text columns included)."""
    parts = []
    for npz in cache.rglob("*.npz"):
        with np.load(npz, allow_pickle=False) as arrays:
            parts += [arrays[name].tobytes() for name in arrays.files]
    return b"".join(parts)


def test_a_folder_swapped_for_a_link_outside_is_not_read(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {
        "guia.md": "# Guia\n\nO termo alfazeta.\n",
        "zzz/pagina.md": "# Página\n\nO termo betazeta.\n",
    })
    outside = write_docs(tmp_path / "fora", {"pagina.md": f"# Fora\n\nO termo {SECRET}.\n"})

    def swap() -> None:
        (docs / "zzz").rename(tmp_path / "zzz-antes")
        (docs / "zzz").symlink_to(outside, target_is_directory=True)

    done = index_with_a_swap(tmp_path, docs, swap)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "zzz/pagina.md: link simbólico para fora da pasta de documentos" in said, said
    saved = saved_text(tmp_path / "cache")
    assert b"alfazeta" in saved or "alfazeta".encode("utf-32-le") in saved  # the check reads
    assert SECRET.encode() not in saved and SECRET.encode("utf-32-le") not in saved


def test_a_file_swapped_for_a_pipe_is_skipped_not_waited_on(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {
        "guia.md": "# Guia\n\nO termo alfazeta.\n",
        "zzz/pagina.md": "# Página\n\nO termo betazeta.\n",
    })

    def swap() -> None:
        (docs / "zzz" / "pagina.md").unlink()
        os.mkfifo(docs / "zzz" / "pagina.md")

    done = index_with_a_swap(tmp_path, docs, swap)
    assert done.returncode == 0, done.stderr
    assert "zzz/pagina.md: não é um arquivo comum" in done.stdout + done.stderr
