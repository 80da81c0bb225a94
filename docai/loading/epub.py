"""EPUB -> sections: its XHTML chapters through the HTML parser, in spine (reading) order.

What is read: `META-INF/container.xml` to find the package (OPF) file, its title
(`dc:title`), its manifest and spine; each spine chapter that is (X)HTML, parsed as any
HTML page (its headings make the heading path). What is not: images, styles, fonts, the
navigation document unless the spine lists it, DRM-encrypted chapters (they read as
binary and are skipped), and anything outside the spine.
An EPUB is a zip, read through `zipped`: entries are checked before anything is inflated
(at most `MAX_ENTRIES` entries, `MAX_CHAPTER_BYTES` per chapter and `MAX_TOTAL_BYTES` in
all, as declared, and reading never takes more than declared), so a zip bomb is refused
unread. XML is parsed without entities or network access.
"""

from __future__ import annotations

import posixpath
import zipfile
from urllib.parse import unquote

from docai import messages
from docai.loading.decoding import decode
from docai.loading.html import parse_html
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.loading.reading import format_size
from docai.loading.zipped import ZIP_ERRORS, TooBig, local, member, open_zip, xml
from docai.records import Section

MAX_CHAPTER_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 100 * 1024 * 1024
_XML_LIMIT = 2 * 1024 * 1024
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})
_CONTAINER = "META-INF/container.xml"


def parse_epub(data: bytes, origin: Origin) -> Parsed:
    try:
        archive, by_name = open_zip(data)
    except TooBig:
        reason = "entradas demais"
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason=reason)) from None
    except ZIP_ERRORS as error:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason=str(error))) from error
    with archive:
        try:
            return _read(archive, by_name, origin)
        except TooBig:
            raise UnusableFile(messages.LOAD_SKIP_EPUB_TOO_BIG.format(
                limit=format_size(MAX_TOTAL_BYTES))) from None
        except ZIP_ERRORS as error:
            reason = str(error) or type(error).__name__
            raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason=reason)) from error


def _read(archive: zipfile.ZipFile, by_name: dict[str, zipfile.ZipInfo],
          origin: Origin) -> Parsed:
    container = xml(member(archive, by_name, _CONTAINER, _XML_LIMIT))
    rootfile = next((e.get("full-path") for e in container.iter() if local(e.tag) == "rootfile"
                     and e.get("full-path")), None)
    if rootfile is None:
        raise UnusableFile(messages.LOAD_SKIP_EPUB_BROKEN.format(reason="sem arquivo OPF"))
    package = xml(member(archive, by_name, rootfile, _XML_LIMIT))
    base = posixpath.dirname(rootfile)
    manifest = {item.get("id"): item for item in package.iter() if local(item.tag) == "item"}
    spine = [ref.get("idref") for ref in package.iter() if local(ref.tag) == "itemref"]
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
                  if local(e.tag) == "title" and (e.text or "").strip()), "") or origin.stem
    sections: list[Section] = []
    for name in chapters:
        decoded = decode(member(archive, by_name, name, MAX_CHAPTER_BYTES), html=True)
        if decoded is None:
            continue
        _, chapter = parse_html(decoded.text, posixpath.splitext(posixpath.basename(name))[0])
        sections.extend(chapter)
    return Parsed(title, tuple(sections))
