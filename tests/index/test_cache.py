"""The on-disk cache: a faithful round trip, and every kind of damage is refused, not trusted."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from docai.errors import CacheError
from docai.index import cache
from docai.index.cache import CachedIndex, CacheKey, FileEntry
from docai.index.chunk_table import ChunkTable
from docai.index.scoring import smooth_idf
from docai.index.sparse import Csr
from docai.records import Chunk

KEY = CacheKey(
    max_tokens=512,
    overlap_tokens=48,
    encoding="enc",
    parser_version="1",
    chunker_version="1",
    analyzer_version="1",
)


def _stored() -> CachedIndex:
    chunks = (
        Chunk("guia/a.md", ("Instalação", "Com pip"), 0, "Instalação > Com pip\npip install", 9),
        Chunk("guia/a.md", ("Instalação",), 1, "Instalação\nçã ü 日本 😀", 7),
    )
    entries = (
        FileEntry("guia/a.md", "ab" * 32, 120, 1_700_000_000_123_456_789, 2, (0, 2),
                  None, ("decodificado como cp1252",)),
        FileEntry("vazio.md", "cd" * 32, 0, 5, 0, (2, 2), "arquivo vazio", ()),
    )
    counts = Csr.of(sp.csr_matrix(np.array([[2, 0, 1], [0, 3, 0]], dtype=np.int32)))
    return CachedIndex(KEY, entries, ("instal", "pip", "çã"), counts, ChunkTable.of(chunks),
                       smooth_idf(counts), counts.column_order())


def same_counts(left: Csr, right: Csr) -> bool:
    return left.shape == right.shape and all(
        np.array_equal(getattr(left, name), getattr(right, name))
        for name in ("data", "indices", "indptr")
    )


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    stored = _stored()
    cache.save(tmp_path, stored)
    loaded = cache.load(tmp_path, KEY)
    assert loaded is not None
    assert loaded.files == stored.files
    assert loaded.vocabulary == stored.vocabulary
    assert same_counts(loaded.counts, stored.counts)
    assert loaded.column_order.tolist() == stored.column_order.tolist() == [0, 2, 1]
    assert list(loaded.chunks) == list(stored.chunks)
    assert loaded.idf.dtype == np.float64
    assert loaded.idf.tobytes() == stored.idf.tobytes()  # bit for bit


def test_no_cache_yet_is_not_an_error(tmp_path: Path) -> None:
    assert cache.load(tmp_path / "nada", KEY) is None


def _damage_message(directory: Path) -> str:
    with pytest.raises(CacheError) as caught:
        cache.load(directory, KEY)
    message = str(caught.value)
    assert "\n" not in message
    return message


def _manifest(directory: Path) -> dict:
    return json.loads((directory / cache.MANIFEST_NAME).read_text(encoding="utf-8"))


def _write_manifest(directory: Path, manifest: dict) -> None:
    (directory / cache.MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")


def test_truncated_manifest_is_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    path = tmp_path / cache.MANIFEST_NAME
    path.write_bytes(path.read_bytes()[:100])
    assert "manifest.json" in _damage_message(tmp_path)


def test_truncated_arrays_are_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    path = tmp_path / cache.ARRAYS_NAME
    path.write_bytes(path.read_bytes()[:200])
    assert "arrays.npz" in _damage_message(tmp_path)


def test_missing_arrays_are_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    (tmp_path / cache.ARRAYS_NAME).unlink()
    assert "arrays.npz" in _damage_message(tmp_path)


@pytest.mark.parametrize(
    ("field", "value"),
    [("files", "não é lista"), ("vocabulary", None), ("generation", 7), ("key", [])],
)
def test_wrong_types_are_refused(tmp_path: Path, field: str, value: object) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    manifest[field] = value
    _write_manifest(tmp_path, manifest)
    assert field in _damage_message(tmp_path)


def _rewrite_arrays(directory: Path, **changes: np.ndarray | None) -> None:
    """Rewrite arrays.npz with some arrays replaced (None: removed), generation kept."""
    path = directory / cache.ARRAYS_NAME
    with np.load(path) as npz:
        arrays = {name: npz[name] for name in npz.files}
    for name, value in changes.items():
        if value is None:
            del arrays[name]
        else:
            arrays[name] = value
    with path.open("wb") as handle:
        np.savez(handle, **arrays)


@pytest.mark.parametrize("name", ["texts", "text_offsets", "ordinals", "heading_offsets"])
def test_missing_chunk_array_is_refused(tmp_path: Path, name: str) -> None:
    cache.save(tmp_path, _stored())
    _rewrite_arrays(tmp_path, **{name: None})
    assert "arrays.npz" in _damage_message(tmp_path)


def test_wrongly_typed_chunk_array_is_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    _rewrite_arrays(tmp_path, tokens=np.array([9.0, 7.0]))
    assert "arrays.npz" in _damage_message(tmp_path)


def test_text_offset_inside_a_character_is_refused(tmp_path: Path) -> None:
    stored = _stored()
    cache.save(tmp_path, stored)
    offsets = stored.chunks.texts.offsets.copy()
    second = stored.chunks[1].text.encode()
    offsets[1] += second.index("ç".encode()) + 1  # the second byte of "ç"
    assert offsets[1] < offsets[2]
    _rewrite_arrays(tmp_path, text_offsets=offsets)
    assert "arrays.npz" in _damage_message(tmp_path)


def test_wrongly_typed_file_value_is_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    manifest["files"]["size"][1] = True
    _write_manifest(tmp_path, manifest)
    assert "size" in _damage_message(tmp_path)


def test_file_columns_of_different_lengths_are_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    del manifest["files"]["sha256"][1]
    _write_manifest(tmp_path, manifest)
    assert "files" in _damage_message(tmp_path)


@pytest.mark.parametrize("chunks", [[1, 0], [2, 1], [-1, 3]])
def test_chunk_counts_that_do_not_match_the_arrays_are_refused(
    tmp_path: Path, chunks: list[int]
) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    manifest["files"]["chunks"] = chunks
    _write_manifest(tmp_path, manifest)
    assert "chunks" in _damage_message(tmp_path)


@pytest.mark.parametrize(
    ("version", "missing"),
    [(2, ("texts", "text_offsets", "ordinals", "idf")), (3, ("idf",))],
)
def test_a_cache_of_a_previous_format_is_named_as_such(
    tmp_path: Path, version: int, missing: tuple[str, ...]
) -> None:
    """Version 2 kept chunks in the manifest, version 3 did not store the idf: the message
    says the format changed, not that the arrays are damaged."""
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    manifest["format_version"] = version
    _write_manifest(tmp_path, manifest)
    _rewrite_arrays(tmp_path, **dict.fromkeys(missing))
    assert f"formato de cache {version}," in _damage_message(tmp_path)


@pytest.mark.parametrize(
    "idf",
    [
        None,  # missing
        np.array([1.5, 2.0]),  # one term short
        np.array([1.5, 2.0, 1.2, 1.0]),  # one term too many
        np.array([1.5, np.nan, 2.0]),
        np.array([1.5, np.inf, 2.0]),
        np.array([1.5, 0.9, 2.0]),  # below 1: no smoothed idf is
        np.array([1.5, 2.0, 1.0], dtype=np.float32),
        np.array([[1.5, 2.0, 1.0]]),
    ],
)
def test_damaged_idf_is_refused(tmp_path: Path, idf: np.ndarray | None) -> None:
    cache.save(tmp_path, _stored())
    _rewrite_arrays(tmp_path, idf=idf)
    assert "arrays.npz" in _damage_message(tmp_path)


@pytest.mark.parametrize(
    "order",
    [
        None,  # missing
        np.array([0, 1, 2]),  # row order, not column order
        np.array([0, 2]),  # one entry short
        np.array([0, 2, 3]),  # past the last entry
        np.array([0, 2, -1]),
        np.array([0, 0, 1]),  # an entry twice, one never
        np.array([0, 2, 1], dtype=np.int32),
        np.array([[0, 2, 1]]),
    ],
)
def test_damaged_column_order_is_refused(tmp_path: Path, order: np.ndarray | None) -> None:
    cache.save(tmp_path, _stored())
    _rewrite_arrays(tmp_path, column_order=order)
    assert "arrays.npz" in _damage_message(tmp_path)


@pytest.mark.parametrize(
    "changes",
    [
        {"indptr": np.array([0, 2, 4])},  # ends past the entries
        {"indptr": np.array([0, 3, 2])},  # decreasing
        {"indptr": np.array([1, 2, 3])},
        {"indices": np.array([0, 2, 3], dtype=np.int32)},  # no such column
        {"indices": np.array([0, -1, 1], dtype=np.int32)},
        {"data": np.array([2.0, 1.0, 3.0])},
        {"data": np.array([2, 1], dtype=np.int32)},
    ],
)
def test_damaged_counts_are_refused(tmp_path: Path, changes: dict[str, np.ndarray]) -> None:
    cache.save(tmp_path, _stored())
    _rewrite_arrays(tmp_path, **changes)
    assert "arrays.npz" in _damage_message(tmp_path)


def test_other_format_version_is_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    manifest["format_version"] = cache.FORMAT_VERSION + 1
    _write_manifest(tmp_path, manifest)
    assert str(cache.FORMAT_VERSION + 1) in _damage_message(tmp_path)


def test_other_settings_name_what_changed(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    other = dataclasses.replace(KEY, max_tokens=256)
    with pytest.raises(CacheError, match="max_tokens.*512.*256"):
        cache.load(tmp_path, other)


def test_a_cache_from_before_a_key_field_existed_names_that_field(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    manifest = _manifest(tmp_path)
    del manifest["key"]["parser_version"]
    _write_manifest(tmp_path, manifest)
    with pytest.raises(CacheError, match=r"configuração parser_version mudou de \(ausente\)"):
        cache.load(tmp_path, KEY)


def test_arrays_from_another_write_are_refused(tmp_path: Path) -> None:
    cache.save(tmp_path, _stored())
    first_arrays = (tmp_path / cache.ARRAYS_NAME).read_bytes()
    cache.save(tmp_path, _stored())
    (tmp_path / cache.ARRAYS_NAME).write_bytes(first_arrays)
    assert "gravações diferentes" in _damage_message(tmp_path)


def test_column_index_out_of_range_is_refused(tmp_path: Path) -> None:
    stored = _stored()
    cache.save(tmp_path, stored)
    manifest = _manifest(tmp_path)
    manifest["vocabulary"] = manifest["vocabulary"][:2]
    _write_manifest(tmp_path, manifest)
    assert "arrays.npz" in _damage_message(tmp_path)


def test_save_into_a_path_below_a_file_raises_oserror(tmp_path: Path) -> None:
    blocker = tmp_path / "arquivo"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OSError):
        cache.save(blocker / "cache", _stored())


def test_save_leaves_no_temporary_files(tmp_path: Path) -> None:
    """Two saves leave the fixed names, the lock, the pointer and one generation only."""
    cache.save(tmp_path, _stored())
    cache.save(tmp_path, _stored())
    names = sorted(p.name for p in tmp_path.iterdir())
    generations = [name for name in names if name.startswith("gen-")]
    assert len(generations) == 1
    assert names == sorted(
        [cache.MANIFEST_NAME, cache.ARRAYS_NAME, cache.LOCK_NAME, "current", *generations]
    )
    assert sorted(p.name for p in (tmp_path / generations[0]).iterdir()) == sorted(
        [cache.MANIFEST_NAME, cache.ARRAYS_NAME]
    )


def test_copied_cache_stays_valid(tmp_path: Path) -> None:
    """The cache has no absolute paths in it: a moved cache folder still loads."""
    cache.save(tmp_path / "a", _stored())
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert cache.load(tmp_path / "b", KEY) is not None
