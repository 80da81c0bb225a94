"""Compressed bombs through the real `docai index`, under a 3 GiB address-space cap: a
gzipped PDF whose forms fan out (PDFium would take gigabytes) is parsed in the isolated
child like any PDF, and a `.md.gz` that inflates to 4 GiB is refused at the size limit;
both are skipped with their reason, the rest of the folder is indexed, and no process
docai started took more than 1 GiB."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from tests.loading.bomb_pdfs import fan_out_pdf
from tests.loading.test_parser_bombs import MEMORY_BOUND_KB, SKIP_REASONS, capped_index
from tests.support.sample_docs import write_docs

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="caps memory with RLIMIT_AS"),
              pytest.mark.timeout(600)]


def test_compressed_bombs_are_skipped_within_bounded_memory(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {"guia.md": "# Guia\n\nO termo alfazeta.\n"})
    (docs / "bomba.pdf.gz").write_bytes(gzip.compress(fan_out_pdf()))
    member = gzip.compress(b"a" * (128 << 20), compresslevel=1)
    (docs / "giga.md.gz").write_bytes(member * 32)  # 32 members of 128 MiB: 4 GiB inflated
    status, peak_kb, said = capped_index(tmp_path, docs)
    assert status == 0, said
    assert "1 arquivo(s) indexado(s)" in said, said
    pdf = next(line for line in said.splitlines() if "bomba.pdf.gz:" in line)
    assert any(reason in pdf for reason in SKIP_REASONS), pdf
    giga = next(line for line in said.splitlines() if "giga.md.gz:" in line)
    assert "descompactado passaria de 20,0 MB" in giga, giga
    assert peak_kb < MEMORY_BOUND_KB, (peak_kb, said)
