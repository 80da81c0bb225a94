"""Real (small) EPUB files built as the format says: a zip with `mimetype` first, a
container pointing at the OPF package, a manifest and a spine of XHTML chapters."""

from __future__ import annotations

import io
import zipfile

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""


def make_epub(title: str, chapters: list[tuple[str, str]], *, spine: list[int] | None = None,
              extra: dict[str, bytes] | None = None) -> bytes:
    """`chapters` are (file name, XHTML body) pairs; `spine` orders them (default: as given)."""
    order = spine if spine is not None else list(range(len(chapters)))
    items = "\n".join(f'<item id="c{i}" href="{name}" media-type="application/xhtml+xml"/>'
                      for i, (name, _) in enumerate(chapters))
    refs = "\n".join(f'<itemref idref="c{i}"/>' for i in order)
    opf = f"""<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></metadata>
  <manifest>{items}</manifest>
  <spine>{refs}</spine>
</package>"""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip", zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", opf)
        for name, body in chapters:
            archive.writestr(f"OEBPS/{name}", f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{name}</title></head>
<body>{body}</body></html>""")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()
