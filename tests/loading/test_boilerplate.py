"""A project's history (changelogs, release notes, announcements) is told apart from its
content by the passage's file name, folder or title, read from real files of each kind;
a question about versions or changes, in English or Portuguese, is told apart from one
about how something works."""

from __future__ import annotations

from pathlib import Path

from docai.chunking import chunk_document
from docai.loading import load_file
from docai.loading.boilerplate import asks_about_history, is_history
from docai.settings import ChunkSettings

FILES = {
    "changelog.rst": "Changelog\n=========\n\n8.0 (2024)\n----------\n\n- #123: ``-x`` now stops "
                     "after the first error.\n",
    "announce/release-2.0.0.rst": "pytest 2.0.0\n============\n\nNew features: -x stops early.\n",
    "whatsnew/3.11.rst.txt": "What's New In Python 3.11\n"
                             "=========================\n\nFaster CPython.\n",
    "docs/notes.md": "# Release notes\n\n## 1.2\n\nThe -x flag was added.\n",
    "cmds/history.md": "# history - show and manipulate command history\n\nLists the "
                       "commands you ran.\n",
    "how-to/failures.rst": "Stopping after the first failure\n"
                           "================================\n\nUse -x to stop.\n",
    "news-of-the-week.md": "# Weekly digest\n\nThe -x option stops at the first error.\n",
}


def test_history_passages_are_told_apart_from_content(tmp_path: Path) -> None:
    history = {}
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        document = load_file(tmp_path, path).document
        assert document is not None, name
        chunks = chunk_document(document, ChunkSettings())
        assert chunks, name
        history[name] = {is_history(chunk.source, chunk.heading_path) for chunk in chunks}
    assert history == {
        "changelog.rst": {True}, "announce/release-2.0.0.rst": {True},
        "whatsnew/3.11.rst.txt": {True}, "docs/notes.md": {True},
        "cmds/history.md": {False}, "how-to/failures.rst": {False},
        "news-of-the-week.md": {False},
    }


def test_questions_about_versions_or_changes_ask_for_history() -> None:
    for question in ("What changed in version 8.0?", "What's new in Python 3.11?",
                     "When was the -x option deprecated?", "O que mudou na versão 2?",
                     "Quais são as novidades do lançamento?", "Since when does -x exist?"):
        assert asks_about_history(question), question
    for question in ("What does the -x option do?", "O que a opção -x faz?",
                     "How do I stop after the first failure?", "Como vejo o histórico do shell?"):
        assert not asks_about_history(question), question
