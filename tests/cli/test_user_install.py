"""`make install-user`: docai on the user's PATH through its own virtual environment.

It installs from PyPI (a minute or two, network), so it runs only when asked:
`DOCAI_TEST_INSTALL=1 .venv/bin/python -m pytest tests/cli/test_user_install.py`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not os.environ.get("DOCAI_TEST_INSTALL"),
                                reason="installs from PyPI: DOCAI_TEST_INSTALL=1 runs it")


@pytest.mark.timeout(900)
def test_install_user_puts_a_working_docai_on_the_path_and_uninstall_removes_it(
    tmp_path: Path
) -> None:
    venv, bin_folder = tmp_path / "venv", tmp_path / "bin"
    where = [f"USER_VENV={venv}", f"USER_BIN={bin_folder}"]
    env = {**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}"}
    done = subprocess.run(["make", "-C", str(ROOT), "install-user", *where], env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    assert "não está no PATH" not in done.stdout  # it is, in this environment
    version = subprocess.run(["docai", "--version"], env=env, capture_output=True, text=True,
                             timeout=60, check=False, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("docai ")
    mcp = subprocess.run(["docai", "mcp", "--help"], env=env, capture_output=True, text=True,
                         timeout=60, check=False, cwd=tmp_path)
    assert mcp.returncode == 0, mcp.stderr  # the MCP SDK came with it
    assert os.path.realpath(bin_folder / "docai") == str(venv / "bin" / "docai")
    subprocess.run(["make", "-C", str(ROOT), "uninstall-user", *where], check=True,
                   capture_output=True, timeout=120)
    assert not (bin_folder / "docai").exists() and not venv.exists()
