"""One hostile file cannot stall indexing: a parse that outlives its time limit is dropped
with a reason naming the limit, and every other file is indexed. Real hostile files: a run
of `[` keeps markdown-it busy for minutes. The limit is lowered here so the tests are quick."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import pytest

from docai.loading import load, load_file
from docai.retrieval.search_index import open_index
from docai.settings import Settings

# Takes markdown-it far longer than the limits below (tens of seconds).
HOSTILE = "[" * 200_000


def test_a_hostile_markdown_file_is_skipped_naming_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "hostil.md"
    path.write_text(HOSTILE, encoding="utf-8")
    result = load_file(tmp_path, path, time_limit_s=0.5)
    assert result.document is None and result.skipped is not None
    assert "0,5 s" in result.skipped.reason


def test_the_default_limit_is_generous_and_grows_with_the_file() -> None:
    assert load.parse_time_limit(0) >= 10
    assert load.parse_time_limit(20 * 1024 * 1024) >= 60


def test_a_timer_set_by_someone_else_is_given_back(tmp_path: Path) -> None:
    """pytest-timeout (or any caller) may use the same timer: it must survive the parse."""
    fired: list[int] = []

    def outer(signum: int, frame: FrameType | None) -> None:
        fired.append(signum)

    path = tmp_path / "guia.md"
    path.write_text("# Guia\n\ntexto\n", encoding="utf-8")
    saved_handler = signal.getsignal(signal.SIGALRM)
    saved_timer = signal.getitimer(signal.ITIMER_REAL)
    signal.signal(signal.SIGALRM, outer)
    signal.setitimer(signal.ITIMER_REAL, 50)
    try:
        assert load_file(tmp_path, path, time_limit_s=5).document is not None
        assert signal.getsignal(signal.SIGALRM) is outer
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 50
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved_handler)
        if saved_timer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *saved_timer)
    assert fired == []


@pytest.mark.parametrize("pages", [3, 40], ids=["in-process", "worker-processes"])
def test_a_build_skips_the_hostile_file_and_indexes_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages: int
) -> None:
    # 40 files are parsed in worker processes, which inherit the lowered limit (fork).
    monkeypatch.setattr(load, "PARSE_SECONDS_MIN", 0.5)
    monkeypatch.setattr(load, "PARSE_SECONDS_PER_MIB", 0.0)
    docs = tmp_path / "docs"
    docs.mkdir()
    for number in range(pages):
        (docs / f"pagina{number:02d}.md").write_text(
            f"# Página {number}\n\nComo configurar o servidor {number}.\n", encoding="utf-8"
        )
    (docs / "pagina01-hostil.md").write_text(HOSTILE, encoding="utf-8")
    index, report = open_index(Settings(docs_dir=docs, cache_dir=tmp_path / "cache"))
    assert report.files == pages
    [skipped] = report.skipped
    assert skipped.source == "pagina01-hostil.md" and "0,5 s" in skipped.reason
    assert index.search("configurar o servidor 2", 1)[0].chunk.source == "pagina02.md"
