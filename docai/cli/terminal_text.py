"""Untrusted text made safe for a terminal: escape sequences and control characters removed.

Model output, file names, headings and server messages are not docai's to trust. Written
raw, an escape sequence can clear the screen, retitle the window, rewrite what the user
already read, or (OSC 52) put text on the clipboard. Everything the CLI prints that came
from outside goes through `strip_controls` (running text) or `one_line` (a label such as a
source, which must stay on its line), and a streamed answer through `StreamCleaner`, which
also catches a sequence split across two pieces of the stream.

What is removed: CSI sequences (`ESC [` … final byte, or the 8-bit CSI), OSC, DCS, SOS, PM
and APC strings (ended by BEL or ST) whose end arrives within `MAX_STRING` characters,
other `ESC` sequences, and then every control character that is left (C0 but newline and
tab, DEL, C1) and the bidirectional controls: whatever a sequence looks like, no control
byte reaches the terminal, and nothing reorders what it shows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from docai.byte_text import valid_values

# A string sequence (a window title, a clipboard payload) longer than this is not looked
# for whole: its introducer is removed and the rest shows as plain text. This bounds what a
# stream holds back while it waits for a terminator that may never come.
MAX_STRING = 512

_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
_STRING_START = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"
_STRING_BODY = rf"[^\x07\x1b\x9c]{{0,{MAX_STRING}}}"
_STRING = _STRING_START + _STRING_BODY + r"(?:\x07|\x1b\\|\x9c)"
_ESCAPE = r"\x1b[\x20-\x2f]*[\x30-\x7e]"
_SEQUENCE = re.compile(f"{_CSI}|{_STRING}|{_ESCAPE}")
# What a stream may still complete into a sequence: held back until the next piece.
_UNFINISHED = re.compile(
    r"(?:(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*"
    + "|" + _STRING_START + _STRING_BODY + r"\x1b?"
    + r"|\x1b[\x20-\x2f]*)\Z"
)
# Bidirectional embeddings, overrides and isolates reorder what follows them on screen: a
# heading or passage could show text in another order than it holds ("Trojan Source").
_BIDI = "\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
# Lone surrogates stand for the bytes of a file name that is not UTF-8: they cannot be
# written to a UTF-8 stream at all.
_SURROGATE = re.compile("[\ud800-\udfff]")
# In a label, also the line and paragraph separators: a line-oriented reader breaks there.
_LABEL_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}\ud800-\udfff]")
_LABEL_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_ESCAPED_BYTES = range(0xDC80, 0xDD00)  # surrogateescape's stand-ins for bytes 0x80-0xff
# Also the line and paragraph separators: a JSON line split at them (Python's splitlines,
# JavaScript) would not parse. And the bidirectional controls: escaped, the text is the same
# for a JSON reader, but a terminal showing the line no longer reorders it.
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f\u2028\u2029{_BIDI}]")


def strip_controls(text: str) -> str:
    """`text` without escape sequences and control characters (newlines and tabs stay)."""
    if text.isprintable():  # the usual case, and a fast one
        return text
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", _SEQUENCE.sub("", text)))


def one_line(text: str) -> str:
    """`text` as one printable line: escape sequences removed, and any control character
    left (a newline in a file name, say) shown as an escape (`\\n`, `\\t`, `\\r`, `\\x1b`),
    so a label never breaks the line-oriented output it sits in. (A file name itself is
    shown with `docai.loading.display_name`, which escapes every such character.)"""
    if text.isprintable():
        return text
    return _LABEL_CONTROL.sub(_escaped, _SEQUENCE.sub("", text))


def json_text(value: Any) -> str:
    """`json.dumps` for a terminal or a pipe: control characters below U+0020 are escaped
    by JSON itself; DEL, the C1 range and U+2028/U+2029, which it leaves raw, are escaped
    too, so one value stays one line whoever splits it. A lone
    surrogate (a byte of a name or question that is not UTF-8) is not Unicode, and a JSON
    reader may refuse it: it becomes U+FFFD (`byte_text.valid_values`)."""
    dumped = json.dumps(valid_values(value), ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", dumped)


class StreamCleaner:
    """`strip_controls` for text arriving in pieces: a sequence split between two pieces is
    removed whole. Only a tail that could still become a sequence is held back, and
    `finish` releases it (cleaned) when the stream ends."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, piece: str) -> str:
        text = self._pending + piece
        unfinished = _UNFINISHED.search(text)
        cut = unfinished.start() if unfinished else len(text)
        self._pending = text[cut:]
        return strip_controls(text[:cut])

    def finish(self) -> str:
        text, self._pending = self._pending, ""
        return strip_controls(text)


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return _LABEL_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
