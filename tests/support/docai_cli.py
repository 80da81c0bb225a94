"""Running `docai` as a user does: the console script in a real process, or `cli.main` here.

A real process is for what only a process shows: a terminal (pty), signals, a closed file
descriptor at start-up, two runs at once. Everything else calls `cli.main` in the test's own
process: the same parsing and code path, without paying for an interpreter start and the
imports of the indexing stack on every call.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

DOCAI = str(Path(sys.executable).with_name("docai"))  # the installed console script


def isolated_env(home: Path, url: str) -> dict[str, str]:
    """The variables that point docai at `url` and keep every file it writes under `home`."""
    return {
        "OLLAMA_HOST": url,
        "DOCAI_CACHE_DIR": str(home / "cache"),
        "HOME": str(home / "home"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),  # no config file unless a test writes one
        "PROMPT_TOOLKIT_NO_CPR": "1",  # a pty does not answer cursor-position queries
        "NO_COLOR": "1",
        "TERM": "xterm",
    }


def docai_env(home: Path, url: str) -> dict[str, str]:
    """The whole environment for a `docai` process: this one's, plus `isolated_env`."""
    return {**os.environ, **isolated_env(home, url)}


class Result(NamedTuple):
    """What a caller of `docai` sees; unpacks as (returncode, stdout, stderr)."""

    returncode: int
    stdout: str
    stderr: str


class InProcessDocai:
    """Call as `docai("ask", question, "--docs", folder)`: runs `cli.main` in this process.

    Output is captured at the file descriptors (`capfd`), as a pipe would see it. stdin is
    a string (empty unless given), never a terminal, as with `subprocess.run(input=...)`.
    """

    def __init__(self, capture: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
        self._capture = capture
        self._monkeypatch = monkeypatch

    def use_env(self, home: Path, url: str) -> None:
        """From now on in this test, run as `docai_env(home, url)` would make a process run."""
        for name, value in isolated_env(home, url).items():
            self._monkeypatch.setenv(name, value)

    def __call__(self, *args: str | Path, stdin: str = "") -> Result:
        from docai.cli.main import main  # at first use: collecting tests imports no docai code

        self._monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        self._capture.readouterr()  # only this run's output
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as done:  # argparse exits for --help and usage errors
            code = _exit_status(done.code)
        out, err = self._capture.readouterr()
        return Result(code, out, err)


def _exit_status(code: object) -> int:
    """The status the interpreter gives `SystemExit(code)`."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
