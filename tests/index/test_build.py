"""open_index: incremental builds search exactly like full rebuilds, and reuse what they can."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docai.cli.output.report import nothing_to_search
from docai.index import cache
from docai.index.build import cache_key
from docai.index.scoring import smooth_idf
from docai.retrieval.search_index import SearchIndex, open_index
from docai.settings import ChunkSettings, Settings

QUESTIONS = (
    "como configurar o cache",
    "instalação com pip",
    "timeout da rede",
    "porta do servidor",
    "tópico 7 parâmetro",
    "arquivo renomeado",
)
TOPICS = ("cache", "rede", "servidor", "instalação", "parâmetro", "timeout", "porta", "log")


def _page(number: int, extra: str = "") -> str:
    topic = TOPICS[number % len(TOPICS)]
    other = TOPICS[(number * 3 + 1) % len(TOPICS)]
    return (
        f"# Página {number}\n\nEsta página explica {topic} e {other} (tópico {number}).\n\n"
        f"## Configurar {topic}\n\nDefina o parâmetro `{topic}_{number}` no arquivo de "
        f"configuração. O {other} depende do {topic}.\n\n```sh\ndocai --{topic} {number}\n```\n\n"
        f"## Problemas com {other}\n\nSe o {other} falhar, aumente o timeout {number}. {extra}\n"
    )


def _docs(root: Path, count: int) -> Path:
    for number in range(count):
        folder = root / f"parte{number % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"pagina{number:02d}.md").write_text(_page(number), encoding="utf-8")
    return root


def _settings(docs: Path, cache_dir: Path, **changes: object) -> Settings:
    return Settings(docs_dir=docs, cache_dir=cache_dir, **changes)


def _hits(index: SearchIndex) -> list[list[tuple[str, int, float]]]:
    """Every question's hits with their exact scores: equal means bit-identical."""
    return [
        [(hit.chunk.source, hit.chunk.ordinal, hit.score) for hit in index.search(q, 5)]
        for q in QUESTIONS
    ]


def _results(settings: Settings) -> list[list[tuple[str, int, float]]]:
    """The hits of the index as `open_index` leaves it (warm, from the cache, when valid)."""
    index, _ = open_index(settings)
    return _hits(index)


def _stored_idf_is_scikit_learns(settings: Settings) -> bool:
    stored = cache.load(settings.resolved_cache_dir(), cache_key(settings))
    assert stored is not None
    return stored.idf.tobytes() == smooth_idf(stored.counts).tobytes()


def _full_rebuild(docs: Path, tmp_path: Path) -> tuple[list, str]:
    settings = _settings(docs, tmp_path / "full-cache", rebuild=True)
    index, _ = open_index(settings)
    return _results(settings), index.fingerprint


def test_incremental_equals_full_rebuild_after_add_edit_delete_rename(tmp_path: Path) -> None:
    # 40 files: the first build parses in worker processes, the updates in-process.
    docs = _docs(tmp_path / "docs", 40)
    settings = _settings(docs, tmp_path / "cache")
    open_index(settings)

    (docs / "parte0" / "nova.md").write_text(_page(99, "Arquivo novo."), encoding="utf-8")
    (docs / "parte1" / "pagina01.md").write_text(_page(1, "Texto editado."), encoding="utf-8")
    (docs / "parte2" / "pagina02.md").unlink()
    (docs / "parte0" / "pagina03.md").rename(docs / "parte0" / "renomeado.md")

    index, report = open_index(settings)
    assert (report.new, report.changed, report.removed) == (2, 1, 2)
    assert report.unchanged == 37
    assert report.cache_status is None
    full_results, full_fingerprint = _full_rebuild(docs, tmp_path)
    assert _results(settings) == full_results
    assert index.fingerprint == full_fingerprint
    assert any(row for row in full_results)  # the questions do find something
    assert _stored_idf_is_scikit_learns(settings)


@pytest.mark.parametrize("retrieval", ["hybrid", "tfidf"])
def test_warm_start_searches_exactly_like_the_build_that_wrote_the_cache(
    tmp_path: Path, retrieval: str
) -> None:
    docs = _docs(tmp_path / "docs", 20)
    settings = _settings(docs, tmp_path / "cache", retrieval=retrieval)
    built, _ = open_index(settings)
    first = _hits(built)
    warm, report = open_index(settings)
    assert (report.unchanged, report.cache_status) == (20, None)
    assert _hits(warm) == first
    assert warm.fingerprint == built.fingerprint
    assert list(warm.chunks) == list(built.chunks)
    # The stored idf is the one scikit-learn fits on the loaded counts.
    assert _stored_idf_is_scikit_learns(settings)
    recomputed = SearchIndex(warm.chunks, warm.matrix, retrieval)
    assert _hits(recomputed) == first
    assert recomputed.fingerprint == built.fingerprint


WARM_START = """
import sys
from pathlib import Path
from docai.retrieval.search_index import open_index
from docai.settings import Settings
index, report = open_index(Settings(docs_dir=Path(sys.argv[1]), cache_dir=Path(sys.argv[2])))
assert report.unchanged == int(sys.argv[3]) and report.cache_status is None, report
assert index.search("configurar o cache", 3)
print(sorted(name for name in sys.modules if name.split(".")[0] == "sklearn"))
"""


def _modules_of_a_warm_start(settings: Settings, files: int) -> str:
    """Open the index in a fresh interpreter (this one has imported scikit-learn already)."""
    done = subprocess.run(
        [sys.executable, "-c", WARM_START, str(settings.docs_dir),
         str(settings.cache_dir), str(files)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_warm_start_does_not_import_scikit_learn(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 5)
    settings = _settings(docs, tmp_path / "cache")
    open_index(settings)
    assert _modules_of_a_warm_start(settings, 5) == "[]"
    # A touched but identical file is hashed, not re-indexed: the stored idf still holds.
    page = docs / "parte0" / "pagina00.md"
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert _modules_of_a_warm_start(settings, 5) == "[]"


def test_removing_files_only_equals_full_rebuild(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 12)
    settings = _settings(docs, tmp_path / "cache")
    open_index(settings)
    for name in ("parte0/pagina00.md", "parte1/pagina04.md", "parte2/pagina11.md"):
        (docs / name).unlink()
    index, report = open_index(settings)
    assert (report.new, report.changed, report.removed, report.unchanged) == (0, 0, 3, 9)
    full_results, full_fingerprint = _full_rebuild(docs, tmp_path)
    assert _results(settings) == full_results
    assert index.fingerprint == full_fingerprint


def test_unchanged_files_are_reused_without_parsing(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 5)
    settings = _settings(docs, tmp_path / "cache")
    _, first = open_index(settings)
    _, second = open_index(settings)
    assert (first.new, first.unchanged) == (5, 0)
    assert (second.new, second.changed, second.removed, second.unchanged) == (0, 0, 0, 5)
    assert (second.chunks, second.tokens, second.sections) == (
        first.chunks, first.tokens, first.sections
    )


def test_touched_but_identical_file_counts_as_unchanged(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 3)
    settings = _settings(docs, tmp_path / "cache")
    open_index(settings)
    page = docs / "parte0" / "pagina00.md"
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    _, report = open_index(settings)
    assert (report.changed, report.unchanged) == (0, 3)
    # The new mtime was recorded: the manifest now matches the file's stat again.
    stored = cache.load(settings.resolved_cache_dir(), cache_key(settings))
    assert stored is not None
    entry = next(e for e in stored.files if e.source == "parte0/pagina00.md")
    assert entry.mtime_ns == page.stat().st_mtime_ns


def test_edit_keeping_size_and_mtime_right_after_indexing_is_still_seen(tmp_path: Path) -> None:
    # An editor saving twice within one timestamp tick leaves size and mtime unchanged;
    # the file was modified just before the cache was written, so it is hashed, not trusted.
    docs = _docs(tmp_path / "docs", 3)
    settings = _settings(docs, tmp_path / "cache")
    open_index(settings)
    page = docs / "parte0" / "pagina00.md"
    stat = page.stat()
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("a", "e"), encoding="utf-8")
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert page.stat().st_size == stat.st_size
    _, report = open_index(settings)
    assert (report.changed, report.unchanged) == (1, 2)


def test_files_older_than_the_cache_are_trusted_by_size_and_mtime(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 3)
    settings = _settings(docs, tmp_path / "cache")
    page = docs / "parte0" / "pagina00.md"
    long_ago = page.stat().st_mtime_ns - 60_000_000_000
    for path in docs.rglob("*.md"):
        os.utime(path, ns=(long_ago, long_ago))
    open_index(settings)
    # Same size and mtime, content changed: not read at all (the documented trade-off).
    page.write_text(page.read_text(encoding="utf-8").replace("a", "e"), encoding="utf-8")
    os.utime(page, ns=(long_ago, long_ago))
    _, report = open_index(settings)
    assert (report.changed, report.unchanged) == (0, 3)


def test_temp_files_of_a_killed_write_are_cleaned_up_by_the_next_save(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 2)
    settings = _settings(docs, tmp_path / "cache")
    directory = settings.resolved_cache_dir()
    directory.mkdir(parents=True)
    leftovers = [directory / ".manifest.json.k1ll3d.tmp", directory / ".arrays.npz.k1ll3d.tmp"]
    for leftover in leftovers:
        leftover.write_bytes(b"half a write")
    index, _ = open_index(settings)
    assert len(index) > 0
    assert not any(leftover.exists() for leftover in leftovers)
    assert sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp")) == []


def test_corrupt_cache_is_reported_in_one_line_and_rebuilt(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 3)
    settings = _settings(docs, tmp_path / "cache")
    expected = _results(settings)
    (settings.resolved_cache_dir() / cache.MANIFEST_NAME).write_text("{nope", encoding="utf-8")
    _, report = open_index(settings)
    assert report.cache_status is not None and "\n" not in report.cache_status
    assert "manifest.json" in report.cache_status
    assert report.new == 3
    assert _results(settings) == expected
    _, again = open_index(settings)
    assert again.cache_status is None


def test_other_chunk_size_rebuilds_and_says_why(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 3)
    open_index(_settings(docs, tmp_path / "cache"))
    smaller = _settings(docs, tmp_path / "cache", chunking=ChunkSettings(max_tokens=64))
    index, report = open_index(smaller)
    assert report.cache_status is not None and "max_tokens" in report.cache_status
    assert report.new == 3
    assert max(chunk.tokens for chunk in index.chunks) <= 64


def test_rebuild_ignores_a_valid_cache(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 2)
    open_index(_settings(docs, tmp_path / "cache"))
    _, report = open_index(_settings(docs, tmp_path / "cache", rebuild=True))
    assert report.new == 2
    assert report.cache_status is not None and "--rebuild" in report.cache_status


def test_unwritable_cache_dir_warns_and_still_searches(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 2)
    blocker = tmp_path / "um-arquivo"
    blocker.write_text("x", encoding="utf-8")
    index, report = open_index(_settings(docs, blocker))
    assert report.cache_warning is not None and "--cache-dir" in report.cache_warning
    assert index.search("cache", 3)


def test_skipped_files_are_remembered_with_their_reason(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 2)
    (docs / "binario.md").write_bytes(b"\x00\x01\x02\x03")
    (docs / "quebrado.md").symlink_to(tmp_path / "sumiu.md")
    settings = _settings(docs, tmp_path / "cache")
    _, first = open_index(settings)
    _, second = open_index(settings)
    for report in (first, second):
        assert [item.source for item in report.skipped] == ["binario.md", "quebrado.md"]
        assert all(item.reason for item in report.skipped)
        assert report.files == 2
    assert (second.new, second.changed, second.unchanged) == (0, 0, 4)


def test_empty_folder_is_not_a_crash(tmp_path: Path) -> None:
    docs = tmp_path / "vazia"
    docs.mkdir()
    (docs / "notas.pages").write_bytes(b"%PDF")
    settings = _settings(docs, tmp_path / "cache")
    index, report = open_index(settings)
    assert report.chunks == 0 and report.files == 0
    assert index.search("qualquer coisa", 3) == []
    message = nothing_to_search(report, docs)
    assert str(docs) in message and "1 .pages" in message


@pytest.mark.parametrize("retrieval", ["tfidf", "bm25"])
def test_cache_is_shared_across_retrieval_methods(tmp_path: Path, retrieval: str) -> None:
    docs = _docs(tmp_path / "docs", 3)
    open_index(_settings(docs, tmp_path / "cache"))
    index, report = open_index(_settings(docs, tmp_path / "cache", retrieval=retrieval))
    assert report.cache_status is None and report.unchanged == 3
    assert index.method == retrieval
