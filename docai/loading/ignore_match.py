"""Gitignore rules matched in linear time: each rule translated to a regular expression by
pathspec (the library `black`, `mypy` and `pre-commit` use for gitignore syntax), the
expressions matched by RE2 sets, never by a backtracking engine.

Why RE2: Python's `re` (pathspec's default engine) backtracks, so one rule such as
`a*a*a*a*a*a*a*a*a*a*a*a*b` against a file named with 60 `a` runs for hours, and 51,000
rules mean 51,000 expressions tried per path. An RE2 set answers "which rules match this
path" in one pass, in time linear in the path's length. RE2 bounds the memory one set may
take, so rules are compiled in groups, a group that does not fit split in two, and a rule
that alone does not fit skipped with a reason, as an invalid one is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import re2
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

# Rules per RE2 set: big enough that 51,000 rules make few sets, small enough to fit RE2's
# default memory bound for ordinary rules (measured: 2,000 fit, 5,000 do not).
GROUP_SIZE = 1000


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule as written; `key` is the caller's, to say where the rule came from."""

    key: int
    text: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """A rule that is skipped, and the library's words for why (for the notice)."""

    rule: Rule
    reason: str


class LinearMatcher:
    """Which of its rules, the last matching one winning as in git, applies to a path."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rejected: list[Rejected] = []
        self._ignores: list[bool] = []  # per kept rule: True to ignore, False for `!rule`
        expressions: list[str] = []
        kept: list[Rule] = []
        for rule in rules:
            try:
                expression, include = GitIgnoreSpecPattern.pattern_to_regex(rule.text)
            except Exception as error:  # noqa: BLE001 (the library's errors have no base)
                self.rejected.append(Rejected(rule, str(error)))
                continue
            if include is None or expression is None:  # a blank line or a comment
                continue
            expressions.append(expression)
            self._ignores.append(bool(include))
            kept.append(rule)
        self._groups: list[tuple[re2.Set, list[int]]] = []
        self._compile(expressions, kept, list(range(len(expressions))))

    def _compile(self, expressions: list[str], rules: list[Rule], indices: list[int]) -> None:
        for start in range(0, len(indices), GROUP_SIZE):
            self._compile_group(expressions, rules, indices[start:start + GROUP_SIZE])

    def _compile_group(self, expressions: list[str], rules: list[Rule],
                       indices: list[int]) -> None:
        added: list[int] = []
        group = re2.Set.SearchSet(_options())
        for index in indices:
            try:
                group.Add(expressions[index])
            except re2.error as error:  # e.g. `[z-a]`: git skips such a rule too
                self.rejected.append(Rejected(rules[index], str(error)))
                continue
            added.append(index)
        if not added:
            return
        try:
            group.Compile()
        except re2.error as error:
            if len(added) == 1:
                self.rejected.append(Rejected(rules[added[0]], str(error)))
                return
            middle = len(added) // 2
            self._compile_group(expressions, rules, added[:middle])
            self._compile_group(expressions, rules, added[middle:])
            return
        self._groups.append((group, added))

    def ignores(self, path: str) -> bool:
        """Whether the last rule matching `path` (a folder's ends with `/`) ignores it."""
        text = _matchable(path)
        for group, indices in reversed(self._groups):  # later groups hold later rules
            matched = group.Match(text)
            if matched:
                return self._ignores[indices[max(matched)]]
        return False


def _matchable(path: str) -> str:
    """`path` as RE2 can take it: valid UTF-8. A name that is not (a byte the file system
    gave undecoded, held as a lone surrogate) has each such byte read as U+FFFD, one
    character, as `?` and `*` then count it."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def _options() -> re2.Options:
    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    return options
