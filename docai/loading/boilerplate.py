"""History pages a question rarely wants: changelogs, release notes and announcements.

Navigation is dropped when a page is read (Sphinx's `genindex`, PDF tables of contents,
running headers, notebooks' figure stand-ins). What stays is a project's history: a
changelog names nearly every option and function the project ever touched ("#1234: `-x`
now stops after the first error"), in short entries that match any question's words
better than the page that explains them (pytest's changelog ranks first and third for
"What does the -x option do?", the answer fifth). Such a passage is still the answer to a
question about versions, changes or deprecations, so it is not dropped: it is marked here,
by its file's name, folder or title, for the ranking to place below content unless the
question asks about history (`asks_about_history`).

Pure functions of a passage's source path, heading path and a question's text.
"""

from __future__ import annotations

import re

# File names (any suffix, any case) of a project's history. `history` and `releases` are
# not among them: fish's `cmds/history.html` is the manual of its `history` command
# (such a page counts when its title is only "History").
HISTORY_NAMES = frozenset({
    "changelog", "changes", "change_log", "change-log", "news", "release-notes",
    "release_notes", "releasenotes", "whatsnew", "whats-new", "whats_new",
})
# Folders holding one page per release (pytest's `announce/`, Python's `whatsnew/`).
HISTORY_FOLDERS = frozenset({
    "announce", "announcements", "changelog", "changelogs", "changes", "news", "releases",
    "release-notes", "release_notes", "releasenotes", "whatsnew", "whats-new",
})
# A page title that is the whole name of a history page, or starts one ("What's New in…").
_HISTORY_TITLE = re.compile(
    r"(?:change ?log|changes|history|news|release notes|release history|releases)\s*"
    r"|(?:what'?s new|what’s new|release notes|changelog|change log|changes in)\b.*",
    re.IGNORECASE)
# Words of a question about versions and changes, in English and Portuguese, or a version
# number. Not "history"/"histórico": a shell's command history is content.
_HISTORY_QUESTION = re.compile(
    r"\b(?:change ?logs?|changed|changes|releases?|released|versions?|new in|what'?s new"
    r"|deprecat\w*|removed|since|added in|mudou|mudanças?|mudaram|versão|versões"
    r"|lançamentos?|lançad[ao]s?|novidades?|obsolet\w*|removid[ao]s?|desde)\b|\b\d+\.\d+",
    re.IGNORECASE)
_SUFFIXES = re.compile(r"(?:\.(?:rst|txt|md|markdown|mdx|html?|adoc|asciidoc|gz|org))+$",
                       re.IGNORECASE)


def is_history(source: str, heading_path: tuple[str, ...] = ()) -> bool:
    """Whether the passage of `source` (its docs-relative path) under `heading_path` is a
    changelog, release notes or a release announcement."""
    *folders, name = source.casefold().split("/")
    if _SUFFIXES.sub("", name) in HISTORY_NAMES:
        return True
    if any(folder in HISTORY_FOLDERS for folder in folders):
        return True
    return bool(heading_path) and _HISTORY_TITLE.fullmatch(heading_path[0].strip()) is not None


def asks_about_history(question: str) -> bool:
    """Whether `question` asks about versions, changes, releases or deprecations (then a
    history passage is as good an answer as any)."""
    return _HISTORY_QUESTION.search(question) is not None
