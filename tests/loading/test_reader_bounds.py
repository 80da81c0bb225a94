"""Hostile pages stay small and quick through the real `docai index` process: a heading of
100k words is cut in every passage (it was stored once per chunk: gigabytes), an AsciiDoc
attribute bomb used as a title stays unexpanded past a bound, a page that includes itself
three times prints each refused include once (it printed 29,524 lines), and an include of
a folder is said to be a folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.docai_cli import DOCAI, docai_env

NO_SERVER = "http://127.0.0.1:9"
LONGEST_HEADING = 400


def run(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, *map(str, args)], env=docai_env(home, NO_SERVER),
                          capture_output=True, text=True, timeout=600, check=False)


def cache_bytes(home: Path) -> int:
    return sum(path.stat().st_size for path in (home / "cache").rglob("*") if path.is_file())


def search(home: Path, docs: Path, question: str) -> list[dict[str, object]]:
    done = run(home, "search", "--docs", docs, "--dense", "off", "--json", "-k", "20", question)
    assert done.returncode == 0, done.stderr
    results: list[dict[str, object]] = json.loads(done.stdout)["results"]
    return results


def test_a_heading_of_100k_words_is_cut_in_every_passage(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    paragraphs = "\n\n".join(f"Paragraph {n} tells how option{n} changes the build."
                             for n in range(300))
    (docs / "huge.md").write_text("# " + "heading " * 100_000 + "\n\n" + paragraphs + "\n",
                                  encoding="utf-8")
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    results = search(tmp_path, docs, "option7 build")
    assert results and all(len(str(r["heading"])) <= LONGEST_HEADING for r in results)
    assert cache_bytes(tmp_path) < 5 * 1024 * 1024


def test_an_attribute_bomb_as_a_title_is_not_expanded_past_a_bound(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    lines = [":a: lollollollollollollollollol"]
    lines += [f":b{n}: " + ("{" + (f"b{n - 1}" if n > 1 else "a") + "}") * 10
              for n in range(1, 7)]
    (docs / "bomb.adoc").write_text("\n".join([*lines, "", "== {b6}", "", "Bomb body words.",
                                               ""]), encoding="utf-8")
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert "bomb.adoc" not in done.stdout + done.stderr  # neither skipped nor warned about
    results = search(tmp_path, docs, "bomb body words")
    assert [r["source"] for r in results] == ["bomb.adoc"]
    assert len(str(results[0]["heading"])) <= LONGEST_HEADING
    assert cache_bytes(tmp_path) < 5 * 1024 * 1024


def test_each_refused_include_is_reported_once(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "parts").mkdir(parents=True)
    (docs / "a.adoc").write_text("= Page\n\nPage words.\n\ninclude::nope.adoc[]\n"
                                 + "include::a.adoc[]\n" * 3, encoding="utf-8")
    (docs / "b.rst").write_text("Page\n====\n\nWords.\n\n.. include:: parts\n",
                                encoding="utf-8")
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert output.count("nope.adoc") == 1
    assert output.count("include de a.adoc") == 1
    folder_notice = next(line for line in output.splitlines() if "include de parts" in line)
    assert "pasta" in folder_notice and "não existe" not in folder_notice
