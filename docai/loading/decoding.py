"""Bytes -> text, choosing the encoding a documentation file most plausibly uses.

Docs folders collect files from many editors: most are UTF-8, some carry a BOM, some were
saved as UTF-16 by Windows tools, and old ones are Windows-1252. Order of trust: an explicit
BOM, then strict UTF-8 (which rarely decodes anything else by accident), then the charset an
HTML page declares in a `<meta>` tag (KOI8-R, Shift_JIS, ...), then cp1252, then latin-1,
which accepts every byte and so always ends the search.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# UTF-32 LE is checked before UTF-16 LE because its BOM starts with the UTF-16 LE BOM.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_STRICT_FALLBACKS = ("utf-8", "cp1252")
_DISPLAY_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "utf-16": "UTF-16",
    "utf-32": "UTF-32",
    "cp1252": "Windows-1252 (cp1252)",
    "latin-1": "Latin-1 (ISO-8859-1)",
}
# C0 controls other than tab, newline, vertical tab, form feed, carriage return and escape
# (ANSI colours in pasted terminal output), plus DEL. Text has almost none of these.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_SNIFF_BYTES = 8192
# `<meta charset="koi8-r">` or `<meta http-equiv="Content-Type" content="...; charset=...">`,
# looked for where browsers look: the first 1024 bytes (we allow a few more).
_META_CHARSET = re.compile(rb"<meta\b[^>]{0,200}?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{1,40})",
                           re.IGNORECASE)
_META_SNIFF_BYTES = 4096
# ANSI/VT100 control sequences (CSI "ESC [ ... letter", OSC "ESC ] ... BEL"), or a lone ESC.
_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\][^\x07\x1b]{0,256}\x07|)")
_MAX_CONTROL_RATIO = 0.10


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text with newlines normalised to '\\n', and the codec that produced it."""

    text: str
    codec: str

    @property
    def is_utf8(self) -> bool:
        return self.codec in ("utf-8", "utf-8-sig")

    @property
    def encoding_name(self) -> str:
        """The name to show the user, e.g. 'Windows-1252 (cp1252)'."""
        return _DISPLAY_NAMES.get(self.codec, self.codec)


def decode(data: bytes, *, html: bool = False) -> Decoded | None:
    """Decode `data`, or return None when it is binary content behind a text extension.
    Only an HTML page (`html`) is read in the charset its `<meta>` tag declares."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return Decoded(_normalise_newlines(data.decode(codec)), codec)
            except UnicodeDecodeError:
                break  # a BOM followed by garbage: judge the bytes like any other file
    if looks_binary(data):
        return None
    for codec in _candidates(data, html):
        try:
            return Decoded(_normalise_newlines(data.decode(codec)), codec)
        except UnicodeDecodeError:
            continue
    return Decoded(_normalise_newlines(data.decode("latin-1")), "latin-1")


def _candidates(data: bytes, html: bool) -> list[str]:
    """Strict codecs to try in order: UTF-8, an HTML page's declared charset, cp1252."""
    declared = declared_charset(data) if html else None
    if declared is None or declared in _STRICT_FALLBACKS or declared.startswith("utf-"):
        # Browsers read a declared UTF-16/32 page (with no BOM) as UTF-8 too.
        return list(_STRICT_FALLBACKS)
    return ["utf-8", declared, "cp1252"]


def declared_charset(data: bytes) -> str | None:
    """The codec a `<meta>` tag near the start names, if Python knows it."""
    match = _META_CHARSET.search(data[:_META_SNIFF_BYTES])
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii")).name
    except LookupError:
        return None


def looks_binary(data: bytes) -> bool:
    """NUL bytes anywhere, or many control bytes near the start, mean it is not text.

    Only the first 8 KiB are checked for control bytes (as git does), which is enough to
    catch images, archives and executables without scanning megabytes of text.
    """
    if b"\x00" in data:
        return True
    sample = data[:_SNIFF_BYTES]
    if not sample:
        return False
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls / len(sample) > _MAX_CONTROL_RATIO


def _normalise_newlines(text: str) -> str:
    """'\n' newlines, and no terminal escape sequences (colours in pasted terminal output):
    shown again on the user's terminal they would recolour or move its text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _TERMINAL_ESCAPE.sub("", text) if "\x1b" in text else text
