"""What `docai index` says about a file is docai's own pt-BR line, and the right one: no
English log line from the PDF library on stderr (a circular outline), a PDF whose pages
hold neither text nor images not called a scan, an include of a folder not called missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

from docai import messages
from tests.loading.pdf_maker import make_pdf
from tests.support.docai_cli import DOCAI, docai_env


def index(home: Path, docs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, "index", "--docs", str(docs), "--dense", "off"],
                          env=docai_env(home, "http://127.0.0.1:9"),
                          capture_output=True, text=True, timeout=600, check=False)


def test_pdf_library_logs_stay_off_stderr_and_blank_pages_are_not_called_a_scan(
        tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "looped.pdf").write_bytes(make_pdf(
        [["Alpha chapter words here"], ["Beta chapter words here"]],
        outline=[("Alpha", 0), ("Beta", 1)], circular_outline=True))
    (docs / "blank.pdf").write_bytes(make_pdf([[], []]))
    done = index(tmp_path, docs)
    assert done.returncode == 0, done.stderr
    assert "bookmark" not in done.stderr and "detected" not in done.stderr
    assert "1 arquivo(s) indexado(s)" in done.stdout
    assert f"blank.pdf: {messages.LOAD_SKIP_PDF_BLANK}" in done.stdout
    assert "escaneadas" not in done.stdout
