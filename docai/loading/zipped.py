"""The members of a zip-based document (EPUB, DOCX, ODT), read so a zip bomb costs nothing.

Such a file is untrusted: its directory may list a million entries, or a member that
inflates a few KB into gigabytes. So the directory is refused past `MAX_ENTRIES`, a member
is refused when it declares more than its limit, and reading never inflates more than the
limit (a member that lies about its size is cut there and refused). XML members are parsed
without entities, DTDs or network access.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from docai import messages
from docai.loading.parsed import UnusableFile
from docai.loading.reading import format_size

MAX_ENTRIES = 10_000
# What one XML member may hold: a document's body (DOCX's document.xml, ODT's content.xml)
# of the 20 MB a file may have, with room for its markup.
MAX_MEMBER_BYTES = 20 * 1024 * 1024
# The errors a damaged archive raises while it is read (lxml's for XML it cannot parse
# even in recovery mode are a SyntaxError).
ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError, KeyError, EOFError,
              NotImplementedError, RuntimeError, SyntaxError)


class TooBig(Exception):
    """A member (or the directory) past its limit: the file is refused as a likely bomb."""


def open_zip(data: bytes) -> tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """The archive and its members by name; raises TooBig past MAX_ENTRIES, or one of
    ZIP_ERRORS when `data` is no zip."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        archive.close()
        raise TooBig
    return archive, {info.filename: info for info in infos}


def member(archive: zipfile.ZipFile, by_name: dict[str, zipfile.ZipInfo], name: str,
           limit: int = MAX_MEMBER_BYTES) -> bytes:
    """The inflated bytes of member `name` (KeyError when absent), never past `limit`."""
    info = by_name.get(name)
    if info is None:
        raise KeyError(f"{name} ausente")
    if info.file_size > limit:
        raise TooBig
    with archive.open(info) as stream:
        data = stream.read(limit + 1)  # never more than declared, nor than the limit
    if len(data) > limit:
        raise TooBig
    return data


def xml_members(data: bytes, kind: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The root elements of the XML members `names` of an office document (`kind`: "DOCX",
    "ODT"), the first one required; raises UnusableFile with the reason the user is shown
    for a damaged file or a likely zip bomb."""
    too_big = messages.LOAD_SKIP_ZIPPED_TOO_BIG.format(
        kind=kind, limit=format_size(MAX_MEMBER_BYTES))
    try:
        archive, by_name = open_zip(data)
    except TooBig:
        raise UnusableFile(too_big) from None
    except ZIP_ERRORS as error:
        raise UnusableFile(messages.LOAD_SKIP_ZIPPED_BROKEN.format(
            kind=kind, reason=str(error) or type(error).__name__)) from error
    with archive:
        try:
            return {name: xml(member(archive, by_name, name)) for name in names
                    if name == names[0] or name in by_name}
        except TooBig:
            raise UnusableFile(too_big) from None
        except ZIP_ERRORS as error:
            raise UnusableFile(messages.LOAD_SKIP_ZIPPED_BROKEN.format(
                kind=kind, reason=str(error) or type(error).__name__)) from error


def xml(data: bytes) -> Any:
    """The root element of an XML member, parsed without entities, DTDs or network."""
    from lxml import etree  # type: ignore[import-untyped]

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             recover=True, load_dtd=False)
    root = etree.fromstring(data, parser)
    if root is None:
        raise ValueError("XML vazio")
    return root


def local(tag: object) -> str:
    """An element's tag without its namespace (`{urn:...}p` -> `p`); "" for a comment."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
