"""A file's name as docai keeps it (`source_name`) and as it shows it (`display_name`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

# Characters that would break a one-line display of a name, or make it ambiguous: the
# backslash (doubled, since it starts every escape), C0 and C1 controls, DEL, the Unicode
# line and paragraph separators, bidirectional overrides (which reorder what follows
# them), and the lone surrogates that stand for the bytes of a name that is not UTF-8.
_UNPRINTABLE = re.compile(
    "[\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_SHORT_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Python's file-system decoding (surrogateescape) turns an undecodable byte B into U+DC00+B.
_ESCAPED_BYTES = range(0xDC80, 0xDD00)


def source_name(root: Path, path: Path) -> str:
    """`path` relative to `root`, with '/' on every OS (the id users see and caches key on).

    Symlinks are not resolved: a linked file is named where it sits in the docs folder.
    The name is kept exactly, newlines included: show it through `display_name`.
    """
    try:
        relative = path.relative_to(root)
    except ValueError:
        relative = Path(os.path.relpath(path.absolute(), root.absolute()))
    return relative.as_posix()


def display_name(name: str) -> str:
    """`name` (a source, a link's target) safe on one line of output, and unambiguous.

    A file name may hold a newline, a terminal control character or bytes that are not
    UTF-8; each becomes a visible escape: `\\n`, `\\x1b`, `\\u0085` for a character, and
    `\\xff` for a raw byte of a name that is not UTF-8 (as `ls -b` shows it). A backslash
    is doubled, so no real name reads like an escaped one.
    """
    return _UNPRINTABLE.sub(_escape, name) if _UNPRINTABLE.search(name) else name


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"
