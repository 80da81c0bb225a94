"""The cache under hostile or unlucky conditions: file names that are not UTF-8, damaged
files the parsers choke on, and a permissive umask. Every case goes through real files on
disk and the real build (`open_index`), or the CLI as a user runs it."""

from __future__ import annotations

import io
import json
import os
import random
import re
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
import pytest

from docai.errors import CacheError
from docai.index import cache, vector_store
from docai.index.vector_store import CHECKSUM_DTYPE, StoredVectors
from docai.retrieval.search_index import open_index
from docai.settings import Settings
from tests.index.test_cache import KEY, _stored
from tests.support.docai_cli import InProcessDocai

BAD_NAME = b"bad\xffname.md"  # not valid UTF-8: Python sees it as "bad\udcffname.md"


def _docs(root: Path, *, bad_name: bool = True) -> Path:
    """Two pages; the proxy page under a name that is not UTF-8 (unless `bad_name` is off)."""
    root.mkdir(parents=True)
    (root / "instalar.md").write_text(
        "# Instalação\n\nRode `pip install docai` num ambiente virtual.\n", encoding="utf-8"
    )
    name = BAD_NAME if bad_name else b"proxy.md"
    with open(os.fsencode(root) + b"/" + name, "wb") as handle:
        handle.write(b"# Proxy reverso\n\nConfigure o proxy reverso nginx na porta 8080.\n")
    return root


# --- a file name that is not valid UTF-8 (item 2) ----------------------------------------


def test_a_file_name_that_is_not_utf8_is_indexed_found_and_reloaded(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    settings = Settings(docs_dir=docs, cache_dir=tmp_path / "cache")
    name = os.fsdecode(BAD_NAME)

    index, report = open_index(settings)
    assert report.cache_warning is None and report.new == 2
    assert [hit.chunk.source for hit in index.search("proxy reverso nginx", 3)][:1] == [name]

    warm, again = open_index(settings)
    assert (again.cache_status, again.new, again.unchanged) == (None, 0, 2)
    assert [hit.chunk.source for hit in warm.search("proxy reverso nginx", 3)][:1] == [name]
    # Stored as valid UTF-8 JSON, the name as an escape that reads back as the same string.
    manifest = (settings.resolved_cache_dir() / cache.MANIFEST_NAME).read_bytes()
    assert name in json.loads(manifest.decode("utf-8"))["files"]["source"]


def test_a_docs_folder_whose_own_path_is_not_utf8_is_indexed_and_reloaded(
    tmp_path: Path,
) -> None:
    docs = Path(os.fsdecode(os.fsencode(tmp_path) + b"/docs\xff"))
    _docs(docs, bad_name=False)
    settings = Settings(docs_dir=docs, cache_dir=tmp_path / "cache")
    index, report = open_index(settings)
    assert report.cache_warning is None and index.search("proxy reverso nginx", 3)
    _, again = open_index(settings)
    assert (again.cache_status, again.unchanged) == (None, 2)


def test_search_names_a_file_whose_name_is_not_utf8(
    docai: InProcessDocai, tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    where = ("--docs", docs, "--cache-dir", tmp_path / "cache")
    for _ in range(2):  # the cold build, then the warm start from the saved cache
        code, out, err = docai("search", "proxy reverso nginx", *where)
        assert code == 0, err
        # However the name is shown (raw byte, U+FFFD, an escape), it is that file's.
        assert re.search(r"bad\S{1,8}name\.md", out.splitlines()[0])
        assert "nginx" in out


def test_vectors_of_a_chunk_from_such_a_file_are_stored(tmp_path: Path) -> None:
    """A file without headings is titled by its name, so its chunk text holds the name."""
    text = f"{os.fsdecode(BAD_NAME)}\nConfigure o proxy"
    key = vector_store.checksum(text)
    stored = StoredVectors("m", np.array([key], dtype=CHECKSUM_DTYPE),
                           np.ones((1, 2), dtype=np.float32))
    vector_store.save(tmp_path / "v.npz", stored)
    loaded = vector_store.load(tmp_path / "v.npz", "m")
    assert loaded is not None and list(loaded.by_key()) == [key]
    assert vector_store.checksum("plain ç") == vector_store.checksum("plain ç")
    assert key != vector_store.checksum("bad\ufffdname.md\nConfigure o proxy")


# --- damaged caches that used to escape as exit 70 (item 7) ------------------------------


def _bare_npy() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.arange(10))
    return buffer.getvalue()


DAMAGE = {
    "manifest nested 200k deep": (cache.MANIFEST_NAME, b"[" * 200_000 + b"]" * 200_000),
    "manifest with a 5000-digit number": (cache.MANIFEST_NAME, b'{"format_version": '
                                          + b"9" * 5000 + b"}"),
    "bare .npy as arrays": (cache.ARRAYS_NAME, _bare_npy()),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_damaged_cache_is_reported_in_one_line_and_rebuilt(
    docai: InProcessDocai, tmp_path: Path, damage: str
) -> None:
    docs = _docs(tmp_path / "docs", bad_name=False)
    where = ("--docs", docs, "--cache-dir", tmp_path / "cache")
    assert docai("index", *where).returncode == 0
    (folder,) = (tmp_path / "cache").iterdir()
    name, content = DAMAGE[damage]
    (folder / name).write_bytes(content)  # through the link: the current generation's file

    code, out, err = docai("index", *where)
    assert code == 0, err
    assert len(err.splitlines()) == 1 and name in err and "reconstruindo" in err
    assert "2 novo(s)" in out
    code, out, err = docai("index", *where)
    assert (code, err) == (0, "")
    assert "0 novo(s)" in out


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


def _unknown_compression(data: bytes) -> bytes:
    """The archive with every member's compression method set to 99 (no reader has it)."""
    raw = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        for found in re.finditer(re.escape(signature), bytes(raw)):
            raw[found.start() + offset:found.start() + offset + 2] = (99).to_bytes(2, "little")
    return bytes(raw)


def _array_damage(members: dict[str, bytes], text_member: str) -> dict[str, bytes]:
    """Archives that numpy's and zipfile's readers fail on in ways beyond ValueError."""
    not_an_array = {**members, text_member: b"plain bytes, no .npy header"}
    bad_header = {**members, text_member: b"\x93NUMPY\x01\x00\x10\x00{'descr': '<i8', (  \n"}
    # A unicode scalar holding code point 0x110000: Python cannot make a str of it.
    beyond_unicode = np.frombuffer(np.array([0x110000] * 4, dtype="<u4").tobytes(), "<U4")
    bad_text = {**members, text_member: _npy(beyond_unicode.reshape(()))}
    return {
        "bare .npy": _bare_npy(),
        "member not an array": _zip(not_an_array),
        "unparsable .npy header": _zip(bad_header),
        "text beyond unicode": _zip(bad_text),
        "unknown compression method": _unknown_compression(_zip(members)),
        "huge declared shape": _zip({**members, text_member: _huge_npy()}),
    }


def _huge_npy() -> bytes:
    """A .npy header declaring 10^13 float64s (80 TB), followed by a few bytes."""
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (10**13,)}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + bytes(64)


def test_every_kind_of_damaged_arrays_file_is_a_cache_error(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    arrays = tmp_path / cache.ARRAYS_NAME
    members = _members(arrays)
    for damage, content in _array_damage(members, "generation.npy").items():
        arrays.write_bytes(content)
        with pytest.raises(CacheError, match="arrays.npz") as caught:
            cache.load(tmp_path, KEY)
        assert "\n" not in str(caught.value), damage


def test_every_kind_of_damaged_vector_file_is_a_cache_error(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    stored = StoredVectors("m", np.array([vector_store.checksum("a")], dtype=CHECKSUM_DTYPE),
                           np.ones((1, 2), dtype=np.float32))
    vector_store.save(path, stored)
    members = _members(path)
    for damage, content in _array_damage(members, "model.npy").items():
        path.write_bytes(content)
        with pytest.raises(CacheError, match="embeddings.npz") as caught:
            vector_store.load(path, "m")
        assert "\n" not in str(caught.value), damage


def test_random_damage_never_escapes_as_anything_but_a_cache_error(tmp_path: Path) -> None:
    """Seeded byte damage (flips, cuts, insertions) to each file and to arrays inside the
    zip (with a valid CRC, so the array parser sees them): loading either raises
    `CacheError` or returns an index, never raises anything else."""
    cache.save(tmp_path, _stored())
    rng = random.Random(16)

    def damaged(data: bytes) -> bytes:
        raw = bytearray(data)
        at = rng.randrange(len(raw))
        kind = rng.randrange(3)
        if kind == 0:
            raw[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            del raw[at:]
        else:
            raw[at:at] = rng.randbytes(rng.randint(1, 16))
        return bytes(raw)

    arrays, manifest = tmp_path / cache.ARRAYS_NAME, tmp_path / cache.MANIFEST_NAME
    intact = {arrays: arrays.read_bytes(), manifest: manifest.read_bytes()}
    members = _members(arrays)
    attempts = []
    for path, original in intact.items():
        attempts += [(path, damaged(original)) for _ in range(150)]
    for _ in range(150):
        names = rng.sample(sorted(members), 2)
        attempts.append((arrays, _zip({name: damaged(data) if name in names else data
                                       for name, data in members.items()})))
    for path, content in attempts:
        path.write_bytes(content)
        with suppress(CacheError):  # anything else fails the test
            cache.load(tmp_path, KEY)
        path.write_bytes(intact[path])


# --- private files whatever the umask (item 12) ------------------------------------------


@contextmanager
def _umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o277], ids=["000", "022", "277"])
def test_cache_folders_and_files_are_private_whatever_the_umask(
    tmp_path: Path, mask: int
) -> None:
    """0700 folders, 0600 files, from the user's cache folder down to the lock and the
    vector store; 0277 would otherwise leave docai unable to write its own folder."""
    docs = _docs(tmp_path / "docs", bad_name=False)
    base = tmp_path / "cache" / "docai"
    settings = Settings(docs_dir=docs, cache_dir=base)
    with _umask(mask):
        for rebuild in (False, True):  # a second save replaces the generation
            _, report = open_index(Settings(docs_dir=docs, cache_dir=base, rebuild=rebuild))
            assert report.cache_warning is None
        directory = settings.resolved_cache_dir()
        stored = StoredVectors("m", np.array([vector_store.checksum("a")], dtype=CHECKSUM_DTYPE),
                               np.ones((1, 2), dtype=np.float32))
        vector_store.save(vector_store.store_path(directory, "m"), stored)

    seen = {"folders": 0, "files": 0}
    for folder, subfolders, files in os.walk(tmp_path / "cache"):
        assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700, folder
        seen["folders"] += 1
        for name in files:
            status = os.lstat(os.path.join(folder, name))
            if stat.S_ISLNK(status.st_mode):
                continue  # a link's own mode is meaningless; what it names is checked
            assert stat.S_IMODE(status.st_mode) == 0o600, (folder, name)
            seen["files"] += 1
        assert all(not name.endswith(".tmp") for name in files + subfolders)
    # cache, docai, the docs' folder, one generation; manifest, arrays, lock, vectors.
    assert seen == {"folders": 4, "files": 4}


def test_a_lock_file_left_world_writable_is_made_private(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    lock = tmp_path / cache.LOCK_NAME
    lock.chmod(0o666)
    cache.save(tmp_path, _stored())
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_existing_parent_folders_keep_their_mode(tmp_path: Path) -> None:
    """Only what docai creates is made private: the user's own folders are left alone."""
    base = tmp_path / "shared"
    base.mkdir()
    base.chmod(0o755)
    cache.save(base / "index", _stored())
    assert stat.S_IMODE(base.stat().st_mode) == 0o755
    assert stat.S_IMODE((base / "index").stat().st_mode) == 0o700
