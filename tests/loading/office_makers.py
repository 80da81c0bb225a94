"""Real (small) DOCX and ODT files, built as the formats say: a zip of XML parts, as Word
and LibreOffice write them (namespaces, styles, the parts each reader needs)."""

from __future__ import annotations

import io
import zipfile

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
ODF_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
}


def zipped(parts: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def docx_styles(styles: dict[str, str]) -> str:
    """`word/styles.xml` naming each paragraph style id (as Word localises ids, "Ttulo1")
    by its built-in English name ("heading 1")."""
    entries = "".join(f'<w:style w:type="paragraph" w:styleId="{style_id}">'
                      f'<w:name w:val="{name}"/></w:style>' for style_id, name in styles.items())
    return f'<?xml version="1.0"?><w:styles xmlns:w="{W_NS}">{entries}</w:styles>'


def docx_paragraph(text: str, style: str | None = None, *, listed: bool = False) -> str:
    properties = ""
    if style or listed:
        properties = ("<w:pPr>" + (f'<w:pStyle w:val="{style}"/>' if style else "")
                      + ('<w:numPr><w:ilvl w:val="0"/></w:numPr>' if listed else "")
                      + "</w:pPr>")
    return f"<w:p>{properties}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"


def make_docx(body: str, *, styles: dict[str, str] | None = None, title: str = "") -> bytes:
    """A DOCX whose `word/document.xml` body is `body` (WordprocessingML elements)."""
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxml'
                               'formats.org/package/2006/content-types"/>',
        "word/document.xml": f'<?xml version="1.0"?><w:document xmlns:w="{W_NS}">'
                             f"<w:body>{body}</w:body></w:document>",
    }
    if styles is not None:
        parts["word/styles.xml"] = docx_styles(styles)
    if title:
        parts["docProps/core.xml"] = (
            '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.'
            'org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements'
            f'/1.1/"><dc:title>{title}</dc:title></cp:coreProperties>')
    return zipped(parts)


def make_odt(body: str, *, title: str = "", automatic_styles: str = "",
             named_styles: str = "") -> bytes:
    """An ODT whose `content.xml` office:text is `body` (ODF text elements), after
    `automatic_styles` (an office:automatic-styles element); `named_styles` (an
    office:styles element) goes into `styles.xml`."""
    spaces = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in ODF_NS.items())
    parts: dict[str, str | bytes] = {
        "mimetype": "application/vnd.oasis.opendocument.text",
        "content.xml": f'<?xml version="1.0"?><office:document-content {spaces}>'
                       f"{automatic_styles}"
                       f"<office:body><office:text>{body}</office:text></office:body>"
                       "</office:document-content>",
    }
    if named_styles:
        parts["styles.xml"] = (f'<?xml version="1.0"?><office:document-styles {spaces}>'
                               f"{named_styles}</office:document-styles>")
    if title:
        parts["meta.xml"] = (f'<?xml version="1.0"?><office:document-meta {spaces}>'
                             f"<office:meta><dc:title>{title}</dc:title></office:meta>"
                             "</office:document-meta>")
    return zipped(parts)
