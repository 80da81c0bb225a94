"""A project's changelog names the option a question asks about in a short entry that
matches the question's words better than the page explaining it: `docai search` (the real
process) lists the page first, unless the question asks what changed; in either case the
changelog stays among the results, and what is refused stays refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.docai_cli import DOCAI, docai_env

# The changelog's entry holds the question's words in a dozen words; the guide's page
# explains the option at length, and by words alone ranks below it.
DOCS = {
    "CHANGELOG.md": "# Changelog\n\n## Version 2.0\n\nChanged in this version:\n\n"
                    "- The `--fail-fast` option now stops the run at the first failing "
                    "test.\n- Reports are written as JSON.\n\n## Version 1.0\n\n"
                    "- First release.\n",
    "guide/running.md": "# Running the suite\n\n## Stopping early\n\nWhen a suite takes long, "
                        "you rarely want to wait for every test after the first one that "
                        "breaks. Pass `--fail-fast` and the runner ends as soon as a test "
                        "fails, printing that test's report and a summary of what ran "
                        "before it. The remaining tests are listed as not run, so a later "
                        "run can pick them up.\n\n## Choosing tests\n\nName a folder or a "
                        "file to run only the tests in it.\n",
}


def search(home: Path, docs: Path, *questions: str, k: int = 5) -> list[list[str]]:
    """The sources `docai search -k K --json` lists for each question, best first."""
    done = subprocess.run(
        [DOCAI, "search", "-k", str(k), "--json", "--dense", "off", "--docs", str(docs)],
        input="\n".join(questions), capture_output=True, text=True, cwd=home,
        env=docai_env(home, "http://127.0.0.1:9"), timeout=120)
    assert done.returncode == 0, done.stderr
    return [[hit["source"] for hit in json.loads(line)["results"]]
            for line in done.stdout.splitlines()]


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def test_the_page_comes_before_the_changelog_unless_the_question_asks_what_changed(
    tmp_path: Path,
) -> None:
    docs = write(tmp_path / "docs", DOCS)
    how, changed, mudou, como = search(
        tmp_path, docs, "What does the --fail-fast option do?", "What changed in 2.0?",
        "O que mudou na versão 2.0 com a opção --fail-fast?",
        "O que a opção --fail-fast faz?")
    assert how[:2] == ["guide/running.md", "CHANGELOG.md"]
    assert como[:2] == ["guide/running.md", "CHANGELOG.md"]
    assert changed[0] == "CHANGELOG.md"
    assert mudou[0] == "CHANGELOG.md"


def test_a_history_page_alone_still_answers(tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {"CHANGELOG.md": DOCS["CHANGELOG.md"]})
    (found,) = search(tmp_path, docs, "What does the --fail-fast option do?")
    assert found == ["CHANGELOG.md"]


def test_whether_a_question_is_answered_is_judged_before_history_moves(tmp_path: Path) -> None:
    # Only the changelog's entry holds both "--fail-fast" and JSON reports: the single best
    # passage covers the question, so it is answered, though the page is the one listed.
    docs = write(tmp_path / "docs", DOCS)
    (found,) = search(tmp_path, docs, "Does --fail-fast write reports as JSON?", k=1)
    assert found == ["guide/running.md"]
