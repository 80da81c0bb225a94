"""Small PDFs that make PDFium take gigabytes, written byte by byte (kept a few KB or MB on
disk): form XObjects that each draw the next level ten times, seven levels deep (ten
million text objects from 2 KB), and a content stream that inflates to gigabytes."""

from __future__ import annotations

import zlib

from tests.loading.pdf_maker import pdf_file

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _document(objects: list[bytes]) -> bytes:
    """A PDF of `objects` whose object 1 is the catalog."""
    return pdf_file(objects, catalog=1)


def fan_out_pdf(levels: int = 7, fan: int = 10) -> bytes:
    """One page drawing form X0, which draws X1 `fan` times, ... down to a form of text:
    fan ** levels text objects once PDFium expands the forms."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"",  # the page, below
               FONT]
    first_form = len(objects) + 1
    for level in range(levels + 1):
        if level < levels:
            data = b" ".join([b"q /X Do Q"] * fan)
            resources = b"/Resources << /XObject << /X %d 0 R >> >>" % (first_form + level + 1)
        else:
            data = b"BT /F1 11 Tf 72 700 Td (bomba de formularios) Tj ET"
            resources = b"/Resources << /Font << /F1 4 0 R >> >>"
        objects.append(_stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                               + resources, data))
    content = len(objects) + 1
    objects.append(_stream(b"", b"q /X0 Do Q"))
    objects[2] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << "
                  b"/XObject << /X0 %d 0 R >> /Font << /F1 4 0 R >> >> /Contents %d 0 R >>"
                  % (first_form, content))
    return _document(objects)


def inflating_pdf(inflated_bytes: int) -> bytes:
    """One page whose FlateDecode content stream inflates to `inflated_bytes` of spaces
    (about a thousandth of that on disk)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
               b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
               FONT]
    objects.append(_stream(b"/Filter /FlateDecode", _deflated(inflated_bytes)))
    return _document(objects)


def _deflated(size: int) -> bytes:
    """A zlib stream of `size` spaces (rounded down to whole MiB), made without compressing
    them all: one MiB compressed after a full flush is a piece that stands alone, so it
    is repeated, and the checksum at the end computed for the whole."""
    block = b" " * (1 << 20)
    count = max(1, size // len(block))
    compressor = zlib.compressobj(9)
    head = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    piece = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush(zlib.Z_FINISH)[:-4]
    checksum = 1
    for _ in range(count):
        checksum = zlib.adler32(block, checksum)
    return head + piece * (count - 1) + end + checksum.to_bytes(4, "big")
