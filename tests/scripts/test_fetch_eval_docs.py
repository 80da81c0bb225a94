"""scripts/pinned_docs.py: a collection made of several pinned archives (a book whose
languages are packaged apart) lands in one folder, each archive checked against its own
SHA-256, and a bad one leaves the folder already there untouched."""

from __future__ import annotations

import hashlib
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import pinned_docs  # noqa: E402
from pinned_docs import FetchError, PinnedDocs  # noqa: E402


@dataclass(frozen=True, slots=True)
class LocalTarball(PinnedDocs):
    """A pinned archive that is a local tarball (`package` is its path)."""

    def download(self, work: Path) -> Path:
        return Path(self.package)

    def unpack(self, archive: Path, folder: Path) -> None:
        with tarfile.open(archive) as bundle:
            bundle.extractall(folder, filter="data")


def _tarball(path: Path, pages: dict[str, str]) -> tuple[str, str]:
    """A tarball of `pages` under book/html/; its path and SHA-256."""
    source = path.with_suffix("")
    for name, text in pages.items():
        page = source / "book" / "html" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    with tarfile.open(path, "w:gz") as bundle:
        bundle.add(source / "book", arcname="book")
    return str(path), hashlib.sha256(path.read_bytes()).hexdigest()


def _book(tmp_path: Path, pt_digest: str | None = None) -> PinnedDocs:
    en, en_digest = _tarball(tmp_path / "en.tar.gz", {"ch01.en.html": "<p>English</p>"})
    pt, real_pt_digest = _tarball(tmp_path / "pt.tar.gz",
                                  {"ch01.pt.html": "<p>Português</p>", "notes.txt": "no"})
    return LocalTarball(
        name="book", package=en, version="1", sha256=en_digest, docs_path="book/html",
        excluded=frozenset(),
        companions=(LocalTarball(name="book", package=pt, version="1",
                                 sha256=pt_digest or real_pt_digest, docs_path="book/html",
                                 excluded=frozenset()),),
    )


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setattr(pinned_docs, "DATA_DIR", folder)
    return folder


def test_every_archive_of_a_collection_lands_in_one_folder(tmp_path: Path, data_dir: Path) -> None:
    book = _book(tmp_path)
    target = pinned_docs.fetch(book)
    assert target == data_dir / "book"
    assert sorted(p.name for p in target.iterdir()) == ["ch01.en.html", "ch01.pt.html"]
    stamp = (data_dir / "book.fetched").read_text(encoding="utf-8").splitlines()
    assert [line.split()[0] for line in stamp] == [book.package, book.companions[0].package]


def test_a_companion_with_the_wrong_checksum_fails_and_keeps_the_old_folder(
    tmp_path: Path, data_dir: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    pinned_docs.fetch(_book(first))
    before = sorted(p.name for p in (data_dir / "book").iterdir())
    with pytest.raises(FetchError, match="SHA-256"):
        pinned_docs.fetch(_book(second, pt_digest="0" * 64))
    assert sorted(p.name for p in (data_dir / "book").iterdir()) == before
