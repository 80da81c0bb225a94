"""Real (small) PDF files written byte by byte: pages of text lines in Helvetica, an
optional outline and Title, with a correct cross-reference table, so PDFium reads them as
it reads any PDF."""

from __future__ import annotations


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(
    pages: list[list[str]],
    *,
    outline: list[tuple[str, int]] = (),  # type: ignore[assignment]
    title: str | None = None,
    circular_outline: bool = False,
    images: bool = False,
) -> bytes:
    """A PDF whose page i shows the lines pages[i] top to bottom; `outline` lists
    (title, page index) bookmarks, all at the top level (the last one pointing back to
    the first, a damaged outline, when `circular_outline`); each page also shows a small
    grey image when `images` (a scanned page, for a PDF without text)."""
    objects: list[bytes] = []

    def add(body: str | bytes) -> int:
        objects.append(body.encode("latin-1") if isinstance(body, str) else body)
        return len(objects)

    catalog = add("")  # filled in below
    pages_id = add("")
    font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    page_ids = []
    for lines in pages:
        stream = "BT /F1 11 Tf 14 TL 72 760 Td " + " ".join(
            f"({_escape(line)}) Tj T*" for line in lines) + " ET"
        if images:
            stream += " q 400 0 0 400 100 100 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \x80 EI Q"
        data = stream.encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
        page_ids.append(add(
            f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"))
    objects[pages_id - 1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] "
        f"/Count {len(page_ids)} >>").encode()
    outline_ref = ""
    if outline:
        root = add("")
        items = [add("") for _ in outline]
        for position, ((label, page), item) in enumerate(zip(outline, items, strict=True)):
            links = f"/Parent {root} 0 R"
            if position > 0:
                links += f" /Prev {items[position - 1]} 0 R"
            if position + 1 < len(items):
                links += f" /Next {items[position + 1]} 0 R"
            elif circular_outline:
                links += f" /Next {items[0]} 0 R"
            objects[item - 1] = (
                f"<< /Title ({_escape(label)}) {links} "
                f"/Dest [{page_ids[page]} 0 R /XYZ 0 792 0] >>").encode("latin-1")
        objects[root - 1] = (f"<< /Type /Outlines /First {items[0]} 0 R /Last {items[-1]} 0 R "
                             f"/Count {len(items)} >>").encode()
        outline_ref = f" /Outlines {root} 0 R"
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_id} 0 R{outline_ref} >>".encode()
    info = add(f"<< /Title ({_escape(title)}) >>") if title else None

    return pdf_file(objects, catalog, info)


def pdf_file(objects: list[bytes], catalog: int, info: int | None = None) -> bytes:
    """The PDF file of `objects` (object i+1 is objects[i]) with its xref table and a
    trailer naming the catalog (and the document info, if any)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root {catalog} 0 R"
    trailer += f" /Info {info} 0 R >>" if info else " >>"
    out += b"trailer\n" + trailer.encode() + b"\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)
