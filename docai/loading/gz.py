"""A gzip-compressed file (`tar.1.gz`, `find.info-2.gz`, `policy.txt.gz`), read as the
format of the name inside it: Debian installs man pages, info manuals and long text
documentation compressed.

The file is inflated at most to the size any file may have (`DEFAULT_MAX_BYTES`), in
pieces, so a gzip bomb costs no more memory than that; a name whose inner format docai
does not read (`logs.tar.gz`) is skipped before anything is inflated.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable
from typing import Any

from docai import messages
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import DEFAULT_MAX_BYTES, Unreadable, format_size, text_of

_PIECE = 1024 * 1024
# A gzip file may be several members one after another (bgzip writes one per 64 KiB, 320
# for 20 MB); counting their magic bytes is an upper bound found without inflating.
MAX_MEMBERS = 10_000
_MEMBER_START = b"\x1f\x8b\x08"


def parse_gz(data: bytes, origin: Origin, format_for: Callable[[Any], Any]) -> Parsed:
    """The parse of the inflated content by the format of the inner name."""
    inner = origin.path.with_name(origin.path.name[: -len(".gz")] or "unnamed")
    kind = format_for(inner)
    if kind is None or inner.suffix.lower() == ".gz":
        raise UnusableFile(messages.LOAD_SKIP_GZ_UNSUPPORTED.format(
            suffix=inner.suffix.lower() or inner.name))
    content = inflated(data, DEFAULT_MAX_BYTES)
    inner_origin = Origin(origin.root, inner)
    if kind.binary:
        parsed: Parsed = kind.parse(content, inner_origin)
        return parsed
    text = text_of(content, inner)
    if isinstance(text, Unreadable):
        raise UnusableFile(text.reason)
    parsed = kind.parse(text.text, inner_origin)
    return parsed


def inflated(data: bytes, limit: int) -> bytes:
    """The gzip stream(s) of `data` inflated, never past `limit` bytes (read in pieces by
    `gzip`, whose members follow one another without the rest of the input being copied)."""
    if data.count(_MEMBER_START) > MAX_MEMBERS:  # each part costs a step: a bomb of parts
        raise UnusableFile(messages.LOAD_SKIP_GZ_BROKEN.format(
            reason=messages.LOAD_GZ_TOO_MANY_MEMBERS.format(limit=MAX_MEMBERS)))
    pieces: list[bytes] = []
    size = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            while piece := stream.read(_PIECE):
                size += len(piece)
                if size > limit:
                    raise UnusableFile(messages.LOAD_SKIP_GZ_TOO_BIG.format(
                        limit=format_size(limit)))
                pieces.append(piece)
    except EOFError:
        raise UnusableFile(messages.LOAD_SKIP_GZ_BROKEN.format(
            reason=messages.LOAD_GZ_TRUNCATED)) from None
    except (OSError, zlib.error):  # gzip.BadGzipFile is an OSError
        raise UnusableFile(messages.LOAD_SKIP_GZ_BROKEN.format(
            reason=messages.LOAD_GZ_CORRUPT)) from None
    return b"".join(pieces)
