"""Parser bombs through the real `docai index`: a 2.6 KB PDF whose form XObjects fan out
(ten million text objects) and a PDF whose content stream inflates to 1.5 GB. PDFium is C
code that no timer interrupts and that aborts when memory runs out: each is parsed in a
child limited in memory and time, skipped with its reason, and the build goes on.

docai runs under a 3 GiB address-space cap, so a regression costs this machine at most
that (and shows as an abort); the peak memory of docai and every process it started is
read from the kernel's account of the children it waited for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.loading.bomb_pdfs import fan_out_pdf, inflating_pdf
from tests.support.docai_cli import DOCAI, docai_env
from tests.support.sample_docs import write_docs

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="caps memory with RLIMIT_AS"),
              pytest.mark.timeout(600)]
NO_SERVER = "http://127.0.0.1:9"
CAP_BYTES = 3 << 30
MEMORY_BOUND_KB = 1 << 20  # 1 GiB, in ru_maxrss's unit
CAPPED = """
import resource, subprocess, sys
cap = int(sys.argv[1])
done = subprocess.run(sys.argv[2:], capture_output=True, text=True,
                      preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
sys.stdout.write(done.stdout + done.stderr)
print("\\nrc=%d maxrss_kb=%d" % (done.returncode,
                                 resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
"""
SKIP_REASONS = ("levou mais de", "passou do limite de memória", "parou sem terminar")


def capped_index(tmp_path: Path, docs: Path) -> tuple[int, int, str]:
    """`docai index` run under the cap: (exit status, peak KB of any process, output)."""
    done = subprocess.run(
        [sys.executable, "-c", CAPPED, str(CAP_BYTES), DOCAI, "index", "--docs", str(docs)],
        capture_output=True, text=True, env=docai_env(tmp_path, NO_SERVER), timeout=540)
    *said, last = done.stdout.rstrip("\n").split("\n")
    status, peak = (int(part.split("=")[1]) for part in last.split())
    return status, peak, "\n".join(said)


@pytest.mark.parametrize("bomb", ["fan-out", "inflate"])
def test_a_pdf_bomb_is_skipped_within_bounded_memory_and_the_rest_is_indexed(
    tmp_path: Path, bomb: str
) -> None:
    docs = write_docs(tmp_path / "docs", {"guia.md": "# Guia\n\nO termo alfazeta.\n"})
    data = fan_out_pdf() if bomb == "fan-out" else inflating_pdf(3 << 29)
    (docs / "bomba.pdf").write_bytes(data)
    status, peak_kb, said = capped_index(tmp_path, docs)
    assert status == 0, said
    assert "1 arquivo(s) indexado(s)" in said, said
    skipped = next(line for line in said.splitlines() if "bomba.pdf:" in line)
    assert any(reason in skipped for reason in SKIP_REASONS), skipped
    assert peak_kb < MEMORY_BOUND_KB, (peak_kb, said)
