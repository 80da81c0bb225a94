"""The saved index switches from one generation to the next in one atomic step: processes
killed with SIGKILL mid-save, processes saving and reading at once, and caches in the old
layout or copied elsewhere all leave a complete index (the old one or the new), never a
mix, and never a rebuild that was not needed."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import shutil
import signal
import time
from collections import Counter
from functools import cache as once
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

import numpy as np
import pytest

from docai.errors import CacheError
from docai.index import cache
from docai.index.build import cache_key
from docai.index.cache import CachedIndex, CacheKey, FileEntry
from docai.index.chunk_table import ChunkTable
from docai.index.counts import count_terms, merge
from docai.index.scoring import smooth_idf
from docai.records import Chunk
from docai.retrieval.search_index import open_index
from docai.settings import Settings

KEY = CacheKey(max_tokens=512, overlap_tokens=48, encoding="enc", parser_version="1",
               chunker_version="1", analyzer_version="1")
KILLS = 30


@once
def variant(which: int, files: int = 60, chunks_per_file: int = 40) -> CachedIndex:
    """An index whose every part (files, vocabulary, counts, chunks) differs between
    variants 0 and 1, large enough that a save takes a while."""
    entries, chunks, terms = [], [], []
    for number in range(files):
        source = f"v{which}/pagina{number:03d}.md"
        start = number * chunks_per_file
        entries.append(FileEntry(source, f"{which:x}{number:063x}", 100 + number, number, 1,
                                 (start, start + chunks_per_file), None, ()))
        for ordinal in range(chunks_per_file):
            words = [f"v{which}termo{(number * 7 + ordinal * k) % 500}" for k in range(1, 30)]
            chunks.append(Chunk(source, (f"Página {number}",), ordinal, " ".join(words), 30))
            terms.append(words)
    vocabulary, counts = merge([count_terms(terms)])
    return CachedIndex(KEY, tuple(entries), vocabulary, counts, ChunkTable.of(chunks),
                       smooth_idf(counts), counts.column_order())


def _which(loaded: CachedIndex | None, candidates: list[CachedIndex]) -> int:
    """Which candidate `loaded` is, checked whole: files, terms, counts, chunks, idf."""
    assert loaded is not None, "the saved index was lost"
    for number, expected in enumerate(candidates):
        if loaded.files == expected.files:
            assert loaded.vocabulary == expected.vocabulary
            assert loaded.counts.shape == expected.counts.shape
            assert all(np.array_equal(getattr(loaded.counts, name), getattr(expected.counts, name))
                       for name in ("data", "indices", "indptr"))
            assert np.array_equal(loaded.column_order, expected.column_order)
            assert list(loaded.chunks) == list(expected.chunks)
            assert loaded.idf.tobytes() == expected.idf.tobytes()
            return number
    raise AssertionError("the loaded index is neither the old nor the new one")


def _save_in_turn(directory: Path, indexes: list[CachedIndex], first: int, saves: int,
                  started: EventType) -> None:
    """In the child: save indexes[first], indexes[first + 1], ... (`saves` times, or until
    killed)."""
    started.set()
    for number in itertools.islice(itertools.count(first), saves or None):
        cache.save(directory, indexes[number % 2])


def _saver(directory: Path, indexes: list[CachedIndex], first: int,
           saves: int = 0) -> BaseProcess:
    """A process saving in turn into `directory`, once it has started saving. Forked, so it
    starts in milliseconds with the indexes already built (30 kills cost no 30 imports)."""
    context = multiprocessing.get_context("fork")
    started = context.Event()
    process = context.Process(target=_save_in_turn,
                              args=(directory, indexes, first, saves, started), daemon=True)
    process.start()
    assert started.wait(timeout=30)
    return process


def _folder_names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def _assert_one_clean_generation(directory: Path) -> None:
    names = _folder_names(directory)
    generations = [name for name in names if name.startswith("gen-")]
    assert len(generations) == 1, names
    assert names == sorted([cache.MANIFEST_NAME, cache.ARRAYS_NAME, cache.LOCK_NAME, "current",
                            *generations])
    assert os.readlink(directory / "current") == generations[0]


def test_kill_9_at_any_moment_of_a_save_leaves_the_old_or_the_new_index(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    indexes = [variant(0), variant(1)]
    cache.save(directory, indexes[0])
    rng = random.Random(6)
    outcomes: Counter[int] = Counter()
    for _ in range(KILLS):
        child = _saver(directory, indexes, first=1)
        time.sleep(rng.uniform(0, 0.05))
        child.kill()  # SIGKILL: no handler, no clean-up, as with `kill -9` or the OOM killer
        child.join()
        assert child.exitcode == -signal.SIGKILL
        outcomes[_which(cache.load(directory, KEY), indexes)] += 1
    assert sum(outcomes.values()) == KILLS
    # Whatever the kills left behind (half-written generations, temp links), the next save
    # clears it.
    cache.save(directory, indexes[1])
    assert _which(cache.load(directory, KEY), indexes) == 1
    _assert_one_clean_generation(directory)


def test_readers_never_miss_the_index_while_two_other_processes_save(tmp_path: Path) -> None:
    """Old generations are deleted only when no reader can be inside them."""
    directory = tmp_path / "cache"
    indexes = [variant(0), variant(1)]
    cache.save(directory, indexes[0])
    writers = [_saver(directory, indexes, first, saves=40) for first in (0, 1)]
    seen: Counter[int] = Counter()
    while any(writer.is_alive() for writer in writers):
        seen[_which(cache.load(directory, KEY), indexes)] += 1
    for writer in writers:
        writer.join()
    assert [writer.exitcode for writer in writers] == [0, 0]
    assert sum(seen.values()) > 0
    _which(cache.load(directory, KEY), indexes)
    _assert_one_clean_generation(directory)


def test_leftovers_of_a_killed_save_are_removed_by_the_next(tmp_path: Path) -> None:
    cache.save(tmp_path, variant(0, files=2))
    half = tmp_path / f"gen-{'ab' * 16}"
    half.mkdir()
    (half / cache.ARRAYS_NAME).write_bytes(b"half a write")
    (tmp_path / ".current.k1ll3d.tmp").symlink_to(half.name)
    assert _which(cache.load(tmp_path, KEY), [variant(0, files=2)]) == 0  # not the half one
    cache.save(tmp_path, variant(1, files=2))
    assert not half.exists()
    _assert_one_clean_generation(tmp_path)


def _old_layout(directory: Path) -> None:
    """Turn a saved cache into what docai wrote before generations: the two files at the
    top of the folder, format 4."""
    for name in (cache.MANIFEST_NAME, cache.ARRAYS_NAME):
        content = (directory / name).read_bytes()
        (directory / name).unlink()
        if name == cache.MANIFEST_NAME:
            current = f'"format_version":{cache.FORMAT_VERSION},'.encode()
            content = content.replace(current, b'"format_version":4,', 1)
        (directory / name).write_bytes(content)
    shutil.rmtree(directory / os.readlink(directory / "current"))
    (directory / "current").unlink()


def test_a_cache_in_the_old_layout_is_named_as_such_and_rebuilt(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Cache\n\nO índice fica na pasta de cache.\n", encoding="utf-8")
    settings = Settings(docs_dir=docs, cache_dir=tmp_path / "cache")
    open_index(settings)
    directory = settings.resolved_cache_dir()
    _old_layout(directory)
    expected = f"formato de cache 4, esta versão usa o {cache.FORMAT_VERSION}"
    with pytest.raises(CacheError, match=expected):
        cache.load(directory, cache_key(settings))
    _, report = open_index(settings)
    assert report.cache_status is not None and "\n" not in report.cache_status
    assert "formato de cache 4" in report.cache_status and report.new == 1
    _, again = open_index(settings)
    assert (again.cache_status, again.unchanged) == (None, 1)
    _assert_one_clean_generation(directory)


@pytest.mark.parametrize("symlinks", [False, True], ids=["cp -r", "cp -a"])
def test_a_copied_cache_loads_and_takes_new_saves(tmp_path: Path, symlinks: bool) -> None:
    """Copying follows the links (`cp -r`) or keeps them (`cp -a`): both copies load, and
    the next save there leaves the usual layout."""
    indexes = [variant(0, files=3), variant(1, files=3)]
    cache.save(tmp_path / "a", indexes[0])
    shutil.copytree(tmp_path / "a", tmp_path / "b", symlinks=symlinks)
    assert _which(cache.load(tmp_path / "b", KEY), indexes) == 0
    cache.save(tmp_path / "b", indexes[1])
    assert _which(cache.load(tmp_path / "b", KEY), indexes) == 1
    assert _which(cache.load(tmp_path / "a", KEY), indexes) == 0
    _assert_one_clean_generation(tmp_path / "b")


def test_each_generation_holds_one_complete_index(tmp_path: Path) -> None:
    """The folder's fixed names lead, through `current`, into one generation."""
    cache.save(tmp_path, variant(0, files=2))
    current = os.readlink(tmp_path / "current")
    for name in (cache.MANIFEST_NAME, cache.ARRAYS_NAME):
        assert os.readlink(tmp_path / name) == f"current/{name}"
        assert (tmp_path / name).resolve() == (tmp_path / current / name).resolve()
    arrays = np.load(tmp_path / current / cache.ARRAYS_NAME, allow_pickle=False)
    with arrays:
        assert str(arrays["generation"]) == current.removeprefix("gen-")
