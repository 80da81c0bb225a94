"""Bytes -> text, choosing the encoding a documentation file most plausibly uses.

Docs folders collect files from many editors: most are UTF-8, some carry a BOM, some were
saved as UTF-16 by Windows tools, and old ones are Windows-1252. Order of trust: an explicit
BOM, then strict UTF-8 (which rarely decodes anything else by accident), then cp1252, then
latin-1, which accepts every byte and so always ends the search.
"""

from __future__ import annotations

import codecs
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


def decode(data: bytes) -> Decoded | None:
    """Decode `data`, or return None when it is binary content behind a text extension."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return Decoded(_normalise_newlines(data.decode(codec)), codec)
            except UnicodeDecodeError:
                break  # a BOM followed by garbage: judge the bytes like any other file
    if looks_binary(data):
        return None
    for codec in _STRICT_FALLBACKS:
        try:
            return Decoded(_normalise_newlines(data.decode(codec)), codec)
        except UnicodeDecodeError:
            continue
    return Decoded(_normalise_newlines(data.decode("latin-1")), "latin-1")


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
    return text.replace("\r\n", "\n").replace("\r", "\n")
