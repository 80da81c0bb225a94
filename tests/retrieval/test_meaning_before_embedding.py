"""A new folder's first question is ranked by meaning without waiting for the collection:
through the real `docai search` process and the bundled multilingual-e5-small.

The folder: a paraphrased question ("start faster") whose words favour the wrong passage
(a start menu, which says "program", "start", "make" and even "How do I"), the right one
(the launch time) sharing only "faster", one about slowness the model also places near the
question, and twenty files on other subjects, so the collection holds far more windows
than a question embeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docai.retrieval.params import DEFAULT_PARAMS

QUESTION = "how do I make the program start faster?"
PAGES = {
    # Sorted first: a tie would go to the wrong passage, so the right one must win outright.
    "0-menu.md": "# Menu\n\n## Start menu\n\nThe start menu of the program shows every command "
                 "of the program. How do I make an entry appear in the start menu? Add it to "
                 "`menu.toml`; entries are sorted by name, and the program reads the menu file "
                 "when it starts.\n",
    "a-speed.md": "# Performance\n\n## Launch time\n\nTo cut the launch time of the "
                  "application, turn on the warm cache with `tool cache on`: the next runs skip "
                  "parsing the configuration again and open in a fraction of a second, which "
                  "makes everything feel faster.\n",
    "c-license.md": "# License\n\nThe program is free software under the MIT license; you may "
                    "copy and share the program.\n",
    "f-slow.md": "# Troubleshooting\n\n## Slow computer\n\nWhen the program is slow, the disk is "
                 "often nearly full: free some space and it will be quick again.\n",
}
OTHER_SUBJECTS = ("colours", "fonts", "icons", "sounds", "printing", "mail", "calendar",
                  "maps", "photos", "music", "video", "games", "weather", "news", "notes",
                  "tasks", "contacts", "clock", "camera", "backup")


def write_folder(folder: Path) -> Path:
    folder.mkdir()
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    for subject in OTHER_SUBJECTS:
        (folder / f"z-{subject}.md").write_text(
            f"# {subject.title()}\n\nThe {subject} panel lists each {subject} entry with its "
            f"date; click one to see the {subject} details and edit them.\n", encoding="utf-8")
    return folder


def search(docs: Path, cache: Path, dense: str) -> tuple[list[str], str]:
    done = subprocess.run(
        [sys.executable, "-m", "docai", "search", QUESTION, "--json", "-v", "--docs", str(docs),
         "--cache-dir", str(cache), "--dense", dense],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    return [hit["source"] for hit in json.loads(done.stdout)["results"]], done.stderr


@pytest.mark.usefixtures("dense_on")
def test_a_paraphrase_on_a_fresh_folder_is_ranked_by_meaning_at_once(tmp_path: Path) -> None:
    docs = write_folder(tmp_path / "docs")
    words, _ = search(docs, tmp_path / "words", "off")
    assert words[0] == "0-menu.md"  # the words pick the start menu

    meaning, said = search(docs, tmp_path / "fresh", "on")
    assert meaning[0] == "a-speed.md"  # the meaning, from the first question
    total = len(PAGES) + len(OTHER_SUBJECTS)
    embedded = DEFAULT_PARAMS.dense_fresh_candidates  # one window a chunk here
    assert f"{embedded} de {total} trechos com embeddings" in said  # not the collection
    assert "As respostas podem melhorar" in said
