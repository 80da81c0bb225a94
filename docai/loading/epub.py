"""EPUB -> sections: its XHTML chapters through the HTML parser, in spine (reading) order.

What is read: `META-INF/container.xml` to find the package (OPF) file, its title
(`dc:title`), its manifest and spine; each spine chapter that is (X)HTML, parsed as any
HTML page (its headings make the heading path). What is not: images, styles, fonts, the
navigation document unless the spine lists it, DRM-encrypted chapters (they read as
binary and are skipped), and anything outside the spine.
An EPUB is a zip: entries are checked before anything is inflated (at most
`MAX_ENTRIES` entries, `MAX_CHAPTER_BYTES` per chapter and `MAX_TOTAL_BYTES` in all, as
declared, and reading never takes more than declared), so a zip bomb is refused unread.
XML is parsed without entities or network access.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from typing import Any
from urllib.parse import unquote

from docai import messages
from docai.loading.decoding import decode
from docai.loading.html import parse_html
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import format_size
from docai.records import Section

MAX_ENTRIES = 10_000
MAX_CHAPTER_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 100 * 1024 * 1024
_XML_LIMIT = 2 * 1024 * 1024
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})
_CONTAINER = "META-INF/container.xml"


def parse_epub(data: bytes, origin: Origin) -> Parsed:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason=str(error))) from error
    with archive:
        try:
            return _read(archive, origin)
        except (zipfile.BadZipFile, OSError, ValueError, KeyError, EOFError,
                NotImplementedError, RuntimeError) as error:
            reason = str(error) or type(error).__name__
            raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason=reason)) from error


def _read(archive: zipfile.ZipFile, origin: Origin) -> Parsed:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason="entradas demais"))
    by_name = {info.filename: info for info in infos}
    container = _xml(_member(archive, by_name, _CONTAINER, _XML_LIMIT))
    rootfile = next((e.get("full-path") for e in container.iter() if _local(e.tag) == "rootfile"
                     and e.get("full-path")), None)
    if rootfile is None:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason="sem arquivo OPF"))
    package = _xml(_member(archive, by_name, rootfile, _XML_LIMIT))
    base = posixpath.dirname(rootfile)
    manifest = {item.get("id"): item for item in package.iter() if _local(item.tag) == "item"}
    spine = [ref.get("idref") for ref in package.iter() if _local(ref.tag) == "itemref"]
    chapters = []
    for idref in spine:
        item = manifest.get(idref)
        if item is None or item.get("media-type") not in _HTML_TYPES or not item.get("href"):
            continue
        name = posixpath.normpath(posixpath.join(base, unquote(item.get("href", ""))))
        if name in by_name and name not in chapters:
            chapters.append(name)
    declared = sum(by_name[name].file_size for name in chapters)
    largest = max((by_name[name].file_size for name in chapters), default=0)
    if declared > MAX_TOTAL_BYTES or largest > MAX_CHAPTER_BYTES:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_TOO_BIG.format(
            limit=format_size(MAX_TOTAL_BYTES)))
    title = next((" ".join((e.text or "").split()) for e in package.iter()
                  if _local(e.tag) == "title" and (e.text or "").strip()), "") or origin.stem
    sections: list[Section] = []
    for name in chapters:
        decoded = decode(_member(archive, by_name, name, MAX_CHAPTER_BYTES), html=True)
        if decoded is None:
            continue
        _, chapter = parse_html(decoded.text, posixpath.splitext(posixpath.basename(name))[0])
        sections.extend(chapter)
    return Parsed(title, tuple(sections))


def _member(archive: zipfile.ZipFile, by_name: dict[str, zipfile.ZipInfo], name: str,
            limit: int) -> bytes:
    info = by_name.get(name)
    if info is None:
        raise KeyError(f"{name} ausente")
    if info.file_size > limit:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_TOO_BIG.format(limit=format_size(limit)))
    with archive.open(info) as member:
        data = member.read(limit + 1)  # never more than declared, nor than the limit
    if len(data) > limit:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_TOO_BIG.format(limit=format_size(limit)))
    return data


def _xml(data: bytes) -> Any:
    from lxml import etree  # type: ignore[import-untyped]

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             recover=True, load_dtd=False)
    root = etree.fromstring(data, parser)
    if root is None:
        raise ValueError("XML vazio")
    return root


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
