"""The forms of the twins and sets that come from Debian's manuals beside the first ones:
the Python docs (`python3.11-doc`: reST `_sources/` beside the HTML build), git's man
pages (`git-man`, the same manual as `git-doc`'s HTML), and a folder of man and info pages
as Debian installs them (`man1/*.1.gz`, `info/*.info*.gz`) for the man/info set.
Versions pinned (Debian 12's), so the figures are of the same text on every machine.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

PYTHON_DOCS = ("python3.11-doc=3.11.2-6+deb12u8",)
GIT_MAN = ("git-man=1:2.39.5-0+deb12u3",)
MAN_INFO = ("tar=1.34+dfsg-1.2+deb12u1", "grep=3.8-5", "sed=4.9-1+deb12u1", "findutils=4.9.0-4",
            "gzip=1.12-1", "diffutils=1:3.8-4", "wget=1.21.3-1+deb12u1", "coreutils=9.1-1",
            "time=1.9-0.2", "bc=1.07.1-3+b1")
SKIPPED_BUILD_PARTS = ("_sources", "_static", "_images", "_downloads")


def _unpacked(packages: tuple[str, ...], work: Path) -> Path:
    work.chmod(0o755)  # apt's download user must be able to enter it
    subprocess.run(["apt-get", "download", "-q", *packages], cwd=work, check=True)
    root = work / "root"
    for deb in work.glob("*.deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def python_docs_forms(data: Path) -> None:
    """`python-docs/html` (the built pages) and `python-docs/rst` (their `.rst.txt`)."""
    with tempfile.TemporaryDirectory() as work:
        html = _unpacked(PYTHON_DOCS, Path(work)) / "usr/share/doc/python3.11/html"
        shutil.rmtree(data / "python-docs", ignore_errors=True)
        shutil.copytree(html, data / "python-docs/html",
                        ignore=shutil.ignore_patterns(*SKIPPED_BUILD_PARTS))
        shutil.copytree(html / "_sources", data / "python-docs/rst")


def git_man_form(data: Path) -> None:
    """`git/man`: git's man pages as installed (`man1/git-commit.1.gz`, `man5/…`)."""
    with tempfile.TemporaryDirectory() as work:
        man = _unpacked(GIT_MAN, Path(work)) / "usr/share/man"
        shutil.rmtree(data / "git/man", ignore_errors=True)
        shutil.copytree(man, data / "git/man", ignore=shutil.ignore_patterns("*.html"))


def man_info_folder(data: Path) -> None:
    """`man-info/man1` and `man-info/info`: the pages of a few everyday GNU tools."""
    with tempfile.TemporaryDirectory() as work:
        root = _unpacked(MAN_INFO, Path(work)) / "usr/share"
        shutil.rmtree(data / "man-info", ignore_errors=True)
        # symlinks kept (`egrep.1.gz` -> `grep.1.gz`): the folder as Debian installs it
        shutil.copytree(root / "man/man1", data / "man-info/man1", symlinks=True)
        shutil.copytree(root / "info", data / "man-info/info", symlinks=True,
                        ignore=shutil.ignore_patterns("dir", "*.png"))


def git_man_source(source: str, data: Path) -> str:
    """`git-commit.html` -> `man1/git-commit.1.gz` (or whichever section holds it)."""
    stem = source.removesuffix(".html")
    found = sorted((data / "git/man").glob(f"man*/{stem}.*.gz"))
    return found[0].relative_to(data / "git/man").as_posix() if found else f"man1/{stem}.1.gz"
