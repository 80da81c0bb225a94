"""The folder follower waits for a file still being written, and only for such a file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from docai.index.freshness import folder_state
from docai.settings import Settings


def _write(path: Path, text: str, age_s: float = 0.0) -> None:
    path.write_text(text, encoding="utf-8")
    if age_s:
        past = time.time() - age_s
        os.utime(path, (past, past))


def test_a_file_saved_a_while_ago_beside_one_just_read_is_settled(tmp_path: Path) -> None:
    """A page the snapshot already held, however recent, is not being written: a file
    added since, saved 30 s ago, is ready to be read."""
    _write(tmp_path / "guia.md", "# Guia\n\nTexto.\n")  # written just now, before the snapshot
    settings = Settings(docs_dir=tmp_path)
    before = folder_state(settings)
    _write(tmp_path / "novo.md", "# Novo\n\nTexto novo.\n", age_s=30)
    now = folder_state(settings)
    assert now.changes(before) == (1, 0, 0)
    assert now.settled_since(before)


def test_a_file_changed_just_now_is_not_settled_until_it_is_quiet(tmp_path: Path) -> None:
    _write(tmp_path / "guia.md", "# Guia\n\nTexto.\n", age_s=30)
    settings = Settings(docs_dir=tmp_path)
    before = folder_state(settings)
    _write(tmp_path / "guia.md", "# Guia\n\nTexto mudado enquanto o editor salva.\n")
    now = folder_state(settings)
    assert now.changes(before) == (0, 1, 0)
    assert not now.settled_since(before)
    assert now.settled_since(before, now_ns=time.time_ns() + 3_000_000_000)


def test_a_removed_file_leaves_the_folder_settled(tmp_path: Path) -> None:
    _write(tmp_path / "guia.md", "# Guia\n\nTexto.\n")
    _write(tmp_path / "velho.md", "# Velho\n\nTexto velho.\n")
    settings = Settings(docs_dir=tmp_path)
    before = folder_state(settings)
    (tmp_path / "velho.md").unlink()
    now = folder_state(settings)
    assert now.changes(before) == (0, 0, 1)
    assert now.settled_since(before)


def test_a_file_dated_in_the_future_is_settled_once_nothing_writes_it(tmp_path: Path) -> None:
    """`touch -d 'next year'`, an archive or a skewed clock: the date a file claims says
    nothing of whether it is still being written; the kernel's time of the last write does."""
    _write(tmp_path / "guia.md", "# Guia\n\nTexto.\n", age_s=30)
    settings = Settings(docs_dir=tmp_path)
    before = folder_state(settings)
    _write(tmp_path / "novo.md", "# Novo\n\nTexto novo.\n", age_s=-365 * 24 * 3600)
    now = folder_state(settings)
    assert now.changes(before) == (1, 0, 0)
    assert now.settled_since(before, now_ns=time.time_ns() + 3_000_000_000)
