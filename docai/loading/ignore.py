"""Which files a walk of the docs folder leaves out by rule: gitignore syntax, translated by
pathspec and matched in linear time (`ignore_match`), never hand-parsed.

In order, later rules winning as in git: docai's defaults (`.git/`, `node_modules/`,
virtual environments, caches), the folder's own `.gitignore` unless the user turns it off
(`DOCAI_GITIGNORE=off`), then `.docaiignore`, whose `!pattern` brings back anything the
earlier rules left out. Only the files at the folder's root are read: a `.gitignore` in a
sub-folder is not (say so to a user who relies on one).

A rules file is untrusted input like any other file of the folder: a line git would skip
(`[z-a]`, a lone `\\` or `!`) is skipped with a notice naming the file and the line; a
file past MAX_RULES_BYTES, rules past MAX_RULES and a rule past MAX_RULE_CHARS are left
out with a notice too (no hand-written rules file comes near them).
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from docai import messages
from docai.loading.ignore_match import LinearMatcher, Rule
from docai.records import Notice

IGNORE_FILE = ".docaiignore"
GIT_IGNORE_FILE = ".gitignore"
# Tools' folders, never a reader's docs, and sometimes huge: a `node_modules` tree holds
# thousands of third-party READMEs that would drown the user's pages in search results.
DEFAULT_RULES = (
    ".git/", "node_modules/", "__pycache__/", ".venv/", "venv/", ".tox/", ".nox/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "site-packages/",
)
MAX_RULES_BYTES = 1 << 20  # a rules file larger than this is not a hand-written one
MAX_RULES = 10_000  # rules read from one file; compiling 51,000 takes seconds
MAX_RULE_CHARS = 4096  # the longest path Linux takes; a longer rule matches nothing real
_DEFAULTS_NAME = ""
# Compiled rules by their text, so the walk each question repeats compiles nothing: rules
# files change rarely, and a big one takes a second to compile. A memo of a pure function.
_COMPILED_KEPT = 8


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The rules of one docs folder; `ignored(relative, is_dir)` applies them; `notices`
    say which rules were skipped and why."""

    matcher: LinearMatcher | None
    # Every rule names folders (`node_modules/`): a file is then never matched by itself,
    # only by the folder that holds it, which the walk does not enter.
    folders_only: bool = False
    # Several folders read as one (`docai.folder_union`): each label's folder keeps its own
    # rules, applied to the paths below it.
    members: tuple[tuple[str, IgnoreRules], ...] = ()
    notices: tuple[Notice, ...] = ()

    @classmethod
    def of(cls, root: Path, *, use_gitignore: bool = True,
           labels: tuple[str, ...] = ()) -> IgnoreRules:
        """The rules of `root`; with `labels`, of each folder `root / label` instead."""
        if labels:
            members = tuple((label, cls.of(root / label, use_gitignore=use_gitignore))
                            for label in labels)
            below = tuple(Notice(f"{label}/{notice.source}", notice.message)
                          for label, rules in members for notice in rules.notices)
            return cls(None, members=members, notices=below)
        files: list[tuple[str, tuple[str, ...]]] = [(_DEFAULTS_NAME, DEFAULT_RULES)]
        notices: list[Notice] = []
        names = ([GIT_IGNORE_FILE] if use_gitignore else []) + [IGNORE_FILE]
        for name in names:
            lines, notice = _rules(root / name)
            files.append((name, lines))
            if notice is not None:
                notices.append(notice)
        matcher, skipped = _compiled(tuple(files))
        patterns = [line.strip() for _, lines in files for line in lines
                    if line.strip() and not line.startswith("#")]
        return cls(matcher, folders_only=all(pattern.endswith("/") for pattern in patterns),
                   notices=(*notices, *skipped))

    def ignored(self, relative: str, *, is_dir: bool) -> bool:
        """Whether the file or folder at `relative` (POSIX, from the root) is left out."""
        if self.members:
            label, _, below = relative.partition("/")
            rules = dict(self.members).get(label)
            return bool(below) and rules is not None and rules.ignored(below, is_dir=is_dir)
        if self.matcher is None or (self.folders_only and not is_dir):
            return False
        return self.matcher.ignores(relative + "/" if is_dir else relative)


@functools.lru_cache(maxsize=_COMPILED_KEPT)
def _compiled(
    files: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[LinearMatcher, tuple[Notice, ...]]:
    """One matcher for the rules of `files` ((name, lines) in order), and a notice for
    each rule left out."""
    rules: list[Rule] = []
    owner: list[tuple[str, int]] = []  # per rule: its file and line
    notes: list[tuple[str, int, str]] = []
    for name, lines in files:
        for number, text in enumerate(lines, start=1):
            if len(text) > MAX_RULE_CHARS:
                notes.append((name, number, messages.IGNORE_RULE_TOO_LONG.format(
                    line=number, limit=MAX_RULE_CHARS)))
                continue
            rules.append(Rule(len(rules), text))
            owner.append((name, number))
    matcher = LinearMatcher(rules)
    for rejected in matcher.rejected:
        name, number = owner[rejected.rule.key]
        notes.append((name, number, messages.IGNORE_RULE_INVALID.format(
            line=number, rule=_shown(rejected.rule.text))))
    return matcher, tuple(Notice(name, note) for name, _, note in sorted(notes))


def _rules(path: Path) -> tuple[tuple[str, ...], Notice | None]:
    """A rules file's lines (at most MAX_RULES), and a notice when some were left out; a
    missing or unreadable one gives none. Opened without blocking and read only when it is
    a regular file: a pipe named `.gitignore` would otherwise wait for a writer for ever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return (), None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return (), None
        if info.st_size > MAX_RULES_BYTES:
            return (), Notice(path.name, messages.IGNORE_FILE_TOO_BIG.format(
                limit=MAX_RULES_BYTES // (1 << 20)))
        data = b""
        while len(data) <= MAX_RULES_BYTES and (more := os.read(fd, 1 << 16)):
            data += more
    except OSError:
        return (), None
    finally:
        os.close(fd)
    lines = data[:MAX_RULES_BYTES].decode("utf-8", errors="replace").splitlines()
    if len(lines) > MAX_RULES:
        return tuple(lines[:MAX_RULES]), Notice(path.name, messages.IGNORE_TOO_MANY_RULES.format(
            line=MAX_RULES + 1, limit=MAX_RULES))
    return tuple(lines), None


def _shown(rule: str) -> str:
    """A rule as a notice quotes it: on one line, cut short."""
    text = rule.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 60 else text[:57] + "..."
