"""Which files a walk of the docs folder leaves out by rule: gitignore syntax, read by
pathspec (the library `black`, `mypy` and `pre-commit` use for it), never hand-matched.

In order, later rules winning as in git: docai's defaults (`.git/`, `node_modules/`,
virtual environments, caches), the folder's own `.gitignore` unless the user turns it off
(`DOCAI_GITIGNORE=off`), then `.docaiignore`, whose `!pattern` brings back anything the
earlier rules left out. Only the files at the folder's root are read: a `.gitignore` in a
sub-folder is not (say so to a user who relies on one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pathspec

IGNORE_FILE = ".docaiignore"
GIT_IGNORE_FILE = ".gitignore"
# Tools' folders, never a reader's docs, and sometimes huge: a `node_modules` tree holds
# thousands of third-party READMEs that would drown the user's pages in search results.
DEFAULT_RULES = (
    ".git/", "node_modules/", "__pycache__/", ".venv/", "venv/", ".tox/", ".nox/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "site-packages/",
)
MAX_RULES_BYTES = 1 << 20  # a rules file larger than this is not a hand-written one


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The rules of one docs folder; `ignored(relative, is_dir)` applies them."""

    spec: pathspec.PathSpec
    # Every rule names folders (`node_modules/`): a file is then never matched by itself,
    # only by the folder that holds it, which the walk does not enter.
    folders_only: bool = False
    # Several folders read as one (`docai.folder_union`): each label's folder keeps its own
    # rules, applied to the paths below it.
    members: tuple[tuple[str, IgnoreRules], ...] = ()

    @classmethod
    def of(cls, root: Path, *, use_gitignore: bool = True,
           labels: tuple[str, ...] = ()) -> IgnoreRules:
        """The rules of `root`; with `labels`, of each folder `root / label` instead."""
        if labels:
            return cls(pathspec.GitIgnoreSpec.from_lines([]), members=tuple(
                (label, cls.of(root / label, use_gitignore=use_gitignore)) for label in labels))
        lines = list(DEFAULT_RULES)
        if use_gitignore:
            lines += _rules(root / GIT_IGNORE_FILE)
        lines += _rules(root / IGNORE_FILE)
        patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        return cls(pathspec.GitIgnoreSpec.from_lines(lines),
                   folders_only=all(pattern.endswith("/") for pattern in patterns))

    def ignored(self, relative: str, *, is_dir: bool) -> bool:
        """Whether the file or folder at `relative` (POSIX, from the root) is left out."""
        if self.members:
            label, _, below = relative.partition("/")
            rules = dict(self.members).get(label)
            return bool(below) and rules is not None and rules.ignored(below, is_dir=is_dir)
        if self.folders_only and not is_dir:
            return False
        return self.spec.match_file(relative + "/" if is_dir else relative)


def _rules(path: Path) -> list[str]:
    """A rules file's lines; a missing, unreadable or oversized one gives none."""
    try:
        if path.stat().st_size > MAX_RULES_BYTES:
            return []
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []

