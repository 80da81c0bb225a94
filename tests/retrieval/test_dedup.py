"""One passage, once: a folder that holds the same text twice (another format, another cut)
does not fill the top hits with copies of it, and `docai index` says how many it saw."""

from __future__ import annotations

from pathlib import Path

from docai.retrieval import dedup
from docai.retrieval.search_index import open_index
from docai.retrieval.verdict import search
from docai.settings import Settings
from tests.support.docai_cli import InProcessDocai

CACHE = ("The quokka cache keeps every compiled template in a folder of its own, "
         "named after the template's checksum, and removes entries older than thirty "
         "days when the server starts.")
OTHER = " ".join(f"Unrelated sentence {n} about deployment targets, workers and queues."
                 for n in range(12))


def folder(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "guia.rst").write_text(f"Cache\n=====\n\n{CACHE}\n", encoding="utf-8")
    (root / "site").mkdir()
    (root / "site" / "guide.html").write_text(
        f"<h1>Guide</h1><h2>5.1. Template cache</h2><p>{CACHE}</p><p>{OTHER}</p>",
        encoding="utf-8")
    (root / "notes.md").write_text(
        "# Notes\n\nThe quokka server starts in a folder given on the command line.\n",
        encoding="utf-8")
    return root


def test_a_copy_of_a_better_hit_is_skipped(tmp_path: Path) -> None:
    settings = Settings(docs_dir=folder(tmp_path / "docs"), cache_dir=tmp_path / "c",
                        dense=False)
    index, _ = open_index(settings)
    hits = search(index, "when does the quokka cache remove old templates", 3, 0.0, None)
    holding = [hit.chunk.source for hit in hits if "thirty days" in hit.chunk.text]
    assert len(holding) == 1, [hit.chunk.source for hit in hits]
    assert "notes.md" in [hit.chunk.source for hit in hits]  # the next passage moves up


def test_repeats_compare_words_not_markup() -> None:
    assert dedup.repeats(["A > B\n" + CACHE, "Other\n" + CACHE.upper().replace(",", ";")]) == [
        False, True]
    assert dedup.repeats(["A\n" + CACHE, "B\n" + OTHER]) == [False, False]
    assert dedup.duplicate_count(["A\n" + CACHE, "B\n" + CACHE, "C\nSee also."]) == 1


def test_index_says_how_many_copies_it_saw(docai: InProcessDocai, tmp_path: Path) -> None:
    docs = folder(tmp_path / "docs")
    (docs / "copia.md").write_text(f"# Copy\n\n{CACHE}\n", encoding="utf-8")
    done = docai("index", "--docs", docs, "--cache-dir", tmp_path / "c", "--dense", "off")
    assert done.returncode == 0, done.stderr
    assert "1 trecho(s) repetem o texto de outro" in done.stdout
