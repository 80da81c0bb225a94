"""The one place that touches file contents: read bytes safely, then decode them.

Every failure a docs folder can produce (vanished file, broken link, permission denied,
a FIFO or folder named like a doc, a huge export, binary data) becomes an `Unreadable`
with a pt-BR reason, so one bad file never stops the others from loading.

The folder may change between the walk and the read (a `git checkout` swapping a folder
for a link, a file for a pipe): what is checked is the file actually opened, not its name.
It is opened without blocking and read only when it is a regular file; and, given the
folders it must be in (`inside`), only when the opened file's real path lies in one of
them, whichever link, in the file's name or in any folder above it, led there.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from docai import messages
from docai.loading.decoding import Decoded, decode
from docai.loading.names import display_name

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
_KIB = 1024
_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Why a file gave no text (a pt-BR reason for `Skipped`)."""

    reason: str


def read_text(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
              inside: tuple[str, ...] | None = None) -> Decoded | Unreadable:
    """Read and decode `path`; files over `max_bytes` are refused before being read."""
    data = read_bytes(path, max_bytes=max_bytes, inside=inside)
    if isinstance(data, Unreadable):
        return data
    return text_of(data, path)


def text_of(data: bytes, path: Path) -> Decoded | Unreadable:
    """The text of a file's bytes (`path` says whether it is an HTML page)."""
    if not data.strip():
        return Unreadable(messages.LOAD_SKIP_EMPTY)
    decoded = decode(data, html=path.suffix.lower() in (".html", ".htm"))
    if decoded is None:
        return Unreadable(messages.LOAD_SKIP_BINARY)
    if not decoded.text.strip():
        return Unreadable(messages.LOAD_SKIP_EMPTY)
    return decoded


def read_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
               inside: tuple[str, ...] | None = None) -> bytes | Unreadable:
    """The bytes of `path` (PDF, EPUB and notebooks are parsed from bytes), or why not;
    files over `max_bytes` are refused before being read, empty ones too. With `inside`
    (real folder paths), a file whose real path is in none of them is refused unread."""
    data = read_file(path, max_bytes=max_bytes, inside=inside)
    if isinstance(data, bytes) and not data.strip():
        return Unreadable(messages.LOAD_SKIP_EMPTY)
    return data


def read_file(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
              inside: tuple[str, ...] | None = None) -> bytes | Unreadable:
    """`read_bytes`, an empty file included (its bytes are hashed like any other's)."""
    try:
        return _read_bytes(path, max_bytes, inside)
    except FileNotFoundError:
        return Unreadable(_missing_reason(path))
    except PermissionError as error:
        return Unreadable(messages.LOAD_SKIP_UNREADABLE.format(reason=_describe(error)))
    except OSError as error:
        return Unreadable(messages.LOAD_SKIP_READ_ERROR.format(reason=_describe(error)))


def _read_bytes(path: Path, max_bytes: int, inside: tuple[str, ...] | None) -> bytes | Unreadable:
    """Open without blocking (a FIFO named `x.md` would otherwise hang), then check the size.

    The size is checked on the open descriptor and again after reading at most
    `max_bytes + 1` bytes, so a file that grows meanwhile is still refused, not swallowed.
    """
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Unreadable(messages.LOAD_SKIP_NOT_A_FILE)
        if inside is not None:
            real = _opened_path(fd, path, info)
            if not any(is_inside(folder, real) for folder in inside):
                return Unreadable(messages.DISCOVER_SKIP_LINK_OUTSIDE.format(
                    target=display_name(real)))
        if info.st_size > max_bytes:
            return _too_big(info.st_size, max_bytes)
        data = _read_at_most(fd, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        return _too_big(len(data), max_bytes)
    return data


def is_inside(real_folder: str, real_path: str) -> bool:
    """Whether `real_path` is `real_folder` or below it (both resolved already)."""
    return real_path == real_folder or real_path.startswith(real_folder.rstrip(os.sep) + os.sep)


def _opened_path(fd: int, path: Path, info: os.stat_result) -> str:
    """The real path of the file open as `fd`: what the kernel opened, whatever links led
    there (Linux's /proc/self/fd); elsewhere `path` resolved, if it is still that file
    (else "", which is inside no folder)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(path)
        try:
            now = os.stat(real)
        except OSError:
            return ""
        return real if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino) else ""
    return real.removesuffix(" (deleted)")


def _read_at_most(fd: int, limit: int) -> bytes:
    """os.read may return fewer bytes than asked, so loop until `limit` or end of file."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0 and (chunk := os.read(fd, min(remaining, _MIB))):
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _missing_reason(path: Path) -> str:
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            return messages.LOAD_SKIP_VANISHED
        return messages.LOAD_SKIP_BROKEN_LINK.format(target=target)
    return messages.LOAD_SKIP_VANISHED


def _too_big(size: int, limit: int) -> Unreadable:
    return Unreadable(
        messages.LOAD_SKIP_TOO_BIG.format(size=format_size(size), limit=format_size(limit))
    )


def format_size(size: int) -> str:
    """Human size in pt-BR style ('52,4 MB', '3,0 KB', '900 bytes'); 1 MB = 1024 KB here."""
    if size >= _MIB:
        return f"{size / _MIB:.1f} MB".replace(".", ",")
    if size >= _KIB:
        return f"{size / _KIB:.1f} KB".replace(".", ",")
    return f"{size} bytes"


def _describe(error: OSError) -> str:
    return error.strerror or str(error)
