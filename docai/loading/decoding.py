"""Bytes -> text, choosing the encoding a documentation file most plausibly uses.

Docs folders collect files from many editors: most are UTF-8, some carry a BOM, some were
saved as UTF-16 by Windows tools, and old ones are Windows-1252. Order of trust: an explicit
BOM, then strict UTF-8 (which rarely decodes anything else by accident), then the charset an
HTML page declares in a `<meta>` tag (KOI8-R, Shift_JIS, ...), then cp1252, then latin-1,
which accepts every byte and so always ends the search.

A UTF-8 file with a few stray bytes (a pasted Windows quote, a truncated character) is not a
legacy file: its valid UTF-8 runs are kept as UTF-8 and only the invalid bytes are read as
cp1252, so one bad byte no longer turns every accented word of it into mojibake. The whole
file is read as cp1252 or Latin-1 only when it holds no multi-byte UTF-8 character at all.
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
# `surrogateescape` turns each byte UTF-8 rejects into U+DC80..U+DCFF; this table reads
# those bytes as cp1252 instead (Latin-1 for the five bytes cp1252 leaves undefined).
_STRAY_BYTES = {
    0xDC00 + byte: bytes([byte]).decode("cp1252", errors="ignore") or chr(byte)
    for byte in range(0x80, 0x100)
}
_STRAY_BYTE = re.compile("[\udc80-\udcff]")
# Any character UTF-8 decoded from more than one byte (not ASCII, not a stray byte).
_MULTIBYTE_CHAR = re.compile("[^\x00-\x7f\udc80-\udcff]")


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text with newlines normalised to '\\n', and the codec that produced it."""

    text: str
    codec: str
    # Bytes that were not valid UTF-8 in an otherwise UTF-8 file, read as cp1252.
    repaired: int = 0

    @property
    def is_utf8(self) -> bool:
        """Clean UTF-8: no notice needed (a repaired file gets its own notice)."""
        return self.codec in ("utf-8", "utf-8-sig") and not self.repaired

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
        if codec == "cp1252" and (repaired := _repair_utf8(data)) is not None:
            return repaired
        try:
            return Decoded(_normalise_newlines(data.decode(codec)), codec)
        except UnicodeDecodeError:
            continue
    return Decoded(_normalise_newlines(data.decode("latin-1")), "latin-1")


def _repair_utf8(data: bytes) -> Decoded | None:
    """UTF-8 where the bytes are valid UTF-8, cp1252 for each byte that is not; None when
    `data` holds no multi-byte UTF-8 character (a legacy file, read whole as cp1252)."""
    escaped = data.decode("utf-8", errors="surrogateescape")
    if _MULTIBYTE_CHAR.search(escaped) is None:
        return None
    repaired = len(_STRAY_BYTE.findall(escaped))
    return Decoded(_normalise_newlines(escaped.translate(_STRAY_BYTES)), "utf-8", repaired)


def _candidates(data: bytes, html: bool) -> list[str]:
    """Strict codecs to try in order: UTF-8, an HTML page's declared charset, cp1252."""
    declared = declared_charset(data) if html else None
    if declared is None or declared in _STRICT_FALLBACKS or declared.startswith("utf-"):
        # Browsers read a declared UTF-16/32 page (with no BOM) as UTF-8 too.
        return list(_STRICT_FALLBACKS)
    return ["utf-8", declared, "cp1252"]


_NOT_PAGE_CHARSETS = frozenset(
    {"unicode-escape", "raw-unicode-escape", "utf-7", "punycode", "idna"}
)


def declared_charset(data: bytes) -> str | None:
    """The codec a `<meta>` tag near the start names, if Python knows it."""
    match = _META_CHARSET.search(data[:_META_SNIFF_BYTES])
    if match is None:
        return None
    try:
        info = codecs.lookup(match.group(1).decode("ascii"))
    except LookupError:
        return None
    # Python also knows codecs that are not a page's character set: bytes-to-bytes ones
    # (base64, hex, rot13) and ones that decode escapes into any code point.
    if not info._is_text_encoding or info.name in _NOT_PAGE_CHARSETS:  # noqa: SLF001
        return None
    return info.name


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
