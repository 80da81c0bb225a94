"""PDF -> sections, one or more per page, read with PDFium (pypdfium2).

What is read: each page's text layer in reading order as PDFium gives it; the outline
(bookmarks) as the heading path, an entry taking effect where its title appears on its
page (else at the top of that page); the document's Title metadata as its title.
What is changed: words hyphenated across a line end are joined ("configu-\\nration" ->
"configuration") when the next line goes on in lower case; a line that opens or closes
most pages (a running header, a footer, a page number, compared with digits ignored) is
dropped, and so is one that is an outline entry's title with a page number before or after
it (a book's running header names the chapter or section the page is in: "72 Chapter 8.
Shared libraries", "8.6. Dependencies between the library and other packages 73").
What is not read: images (no OCR: a PDF without a text layer is skipped with that
reason), annotations, form fields, attachments. Tables and columns come out as PDFium
orders their text. A password-protected or damaged PDF is skipped with its reason.
Every passage is cited by the page it starts on (`manual.pdf p. 47`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from docai import messages
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.records import Location, Section

# A line ending in a hyphen (or a soft hyphen) before a lower-case letter; PDFium marks a
# hyphen it found at a line end with U+FFFE (and may have joined the lines itself).
_HYPHENATED = re.compile(r"(\w)(?:[-\u00ad\x02]\n|\ufffe\n?)(?=[a-zà-ÿ])")
_LINE_END_HYPHEN = "\ufffe"
_DIGITS = re.compile(r"\d+")
_RUNNING_HEADER = re.compile(
    r"(?:(?P<before>\d+)\s+)?(?:chapter\s+\d+\.?\s+|[\d.]+\s+)?(?P<title>.+?)"
    r"(?:\s+(?P<after>\d+))?", re.IGNORECASE)
# How many lines at each end of a page may be running headers or footers, and on what
# share of pages a line must repeat there to count as one (only with this many pages).
_EDGE_LINES = 2
_REPEATED_SHARE = 0.5
_MIN_PAGES_FOR_REPEATS = 4
# Outline entries beyond this are ignored (a hostile outline can list millions).
_MAX_OUTLINE = 10_000
# Below this many letters in the whole file, there is no text layer to speak of.
_MIN_LETTERS = 20
# Fewer letters a page than this (web addresses aside) is a text layer that holds little
# of what the pages show (a scan with its links, text drawn as shapes): read, with a note.
_LITTLE_TEXT_PER_PAGE = 25
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")


@dataclass(frozen=True, slots=True)
class _Entry:
    level: int
    title: str
    page: int


def parse_pdf(data: bytes, origin: Origin) -> Parsed:
    import pypdfium2 as pdfium

    _quiet_library_log()
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if "password" in str(error).lower():
            raise UnusableFile(messages.LOAD_SKIP_PDF_ENCRYPTED) from error
        raise UnusableFile(messages.LOAD_SKIP_PDF_BROKEN.format(reason=str(error))) from error
    try:
        pages = [_page_text(document, index) for index in range(len(document))]
        outline = _outline(document, len(pages))
        title = _metadata_title(document) or origin.stem
        images = not _has_letters(pages, _MIN_LETTERS) and _has_images(document, pdfium)
    except pdfium.PdfiumError as error:
        raise UnusableFile(messages.LOAD_SKIP_PDF_BROKEN.format(reason=str(error))) from error
    finally:
        document.close()
    if not _has_letters(pages, _MIN_LETTERS):
        raise UnusableFile(messages.LOAD_SKIP_PDF_NO_TEXT if images
                           else messages.LOAD_SKIP_PDF_NO_PAGES if not pages
                           else messages.LOAD_SKIP_PDF_BLANK)
    pages = drop_repeated_edges(pages, {_words(entry.title) for entry in outline})
    notes: tuple[str, ...] = ()
    if len(pages) >= _MIN_PAGES_FOR_REPEATS and not _has_letters(
            [_URL.sub("", page) for page in pages], _LITTLE_TEXT_PER_PAGE * len(pages)):
        notes = (messages.LOAD_NOTE_PDF_LITTLE_TEXT.format(pages=len(pages)),)
    return Parsed(title, page_sections(pages, outline, title), notes)


def _quiet_library_log() -> None:
    """PDFium's wrapper logs what it finds wrong in a file (a circular outline...) in
    English on stderr; docai says what matters about a file itself, in one pt-BR line."""
    import logging

    library = logging.getLogger("pypdfium2")
    if not any(isinstance(handler, logging.NullHandler) for handler in library.handlers):
        library.addHandler(logging.NullHandler())
        library.propagate = False


def _has_images(document: object, pdfium: object) -> bool:
    """Whether some page shows an image (a scan), looked for only in a PDF without text;
    the search stops at the first one and does not enter nested forms beyond one level."""
    image = pdfium.raw.FPDF_PAGEOBJ_IMAGE  # type: ignore[attr-defined]
    for index in range(len(document)):  # type: ignore[arg-type]
        page = document[index]  # type: ignore[index]
        try:
            if next(iter(page.get_objects(filter=[image], max_depth=2)), None) is not None:
                return True
        finally:
            page.close()
    return False


def _has_letters(pages: list[str], minimum: int) -> bool:
    """Whether the pages hold at least `minimum` letters (a text layer, not just page
    numbers); counted page by page, stopping as soon as there are enough."""
    letters = 0
    for page in pages:
        letters += sum(map(str.isalpha, page))
        if letters >= minimum:
            return True
    return False


def _page_text(document: object, index: int) -> str:
    page = document[index]  # type: ignore[index]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()
    return clean_page(text)


def clean_page(text: str) -> str:
    """One page's text: line ends unified, hyphenation across lines undone, blanks trimmed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _HYPHENATED.sub(r"\1", text).replace(_LINE_END_HYPHEN, "-")
    lines = [line.rstrip() for line in text.split("\n") if not _contents_entry(line)]
    return "\n".join(lines).strip("\n")


def _contents_entry(line: str) -> bool:
    """A table of contents' line: a title, a dot leader, a page number ("2.1 Scope ....
    12"): navigation, which would outrank the pages it points to."""
    stem = line.rstrip().rstrip("0123456789ivxlcIVXLC")
    if stem == line.rstrip():
        return False
    leader = stem[len(stem.rstrip(". \t")):]
    return leader.count(".") >= 4 and bool(stem.strip(". \t"))


def drop_repeated_edges(pages: list[str], titles: frozenset[str] | set[str] = frozenset()
                        ) -> list[str]:
    """Pages without the lines that open or close most of them (headers, footers, page
    numbers), compared with their digits ignored ("Page 3 of 9" is "Page # of #"), nor the
    edge lines that are one of `titles` (outline titles, `_words`) beside a page number."""
    repeated: set[str] = set()
    if len(pages) >= _MIN_PAGES_FOR_REPEATS:
        seen: Counter[str] = Counter()
        for page in pages:
            seen.update({_shape(line) for line in _edges(page)})
        threshold = _REPEATED_SHARE * len(pages)
        repeated = {shape for shape, count in seen.items() if count >= threshold and shape}
    if not repeated and not titles:
        return pages
    cleaned = []
    for page in pages:
        lines = page.split("\n")
        edge = set(range(_EDGE_LINES)) | set(range(len(lines) - _EDGE_LINES, len(lines)))
        kept = [line for number, line in enumerate(lines)
                if not (number in edge and (_shape(line) in repeated
                                            or _running_title(line) in titles))]
        cleaned.append("\n".join(kept).strip("\n"))
    return cleaned


def _running_title(line: str) -> str | None:
    """The title a running header names, when `line` is one: a page number, then the title
    (after "Chapter 8." or a section number), or the title then a page number."""
    match = _RUNNING_HEADER.fullmatch(line.strip())
    if match is None or (match["before"] is None) == (match["after"] is None):
        return None
    return _words(match["title"])


def _words(title: str) -> str:
    return " ".join(title.split()).casefold()


def _edges(page: str) -> list[str]:
    lines = [line for line in page.split("\n") if line.strip()]
    return lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]


def _shape(line: str) -> str:
    return " ".join(_DIGITS.sub("#", line).split()).casefold()


def page_sections(pages: list[str], outline: list[_Entry], title: str) -> tuple[Section, ...]:
    """Each page's text under the outline path in force, split where an entry's title
    appears on its page. A section that runs over a page break stays one section (chunked
    as its HTML twin's would be), each page's start kept as a turn so a chunk cites the
    page it starts on."""
    starts: dict[int, list[_Entry]] = {}
    for entry in outline:
        starts.setdefault(entry.page, []).append(entry)
    stack: list[_Entry] = []
    pieces: list[tuple[tuple[str, ...], str, Location]] = []

    def path() -> tuple[str, ...]:
        return tuple(entry.title for entry in stack) or (title,)

    for number, text in enumerate(pages):
        location = Location("page", number + 1)
        cursor = 0
        for entry in starts.get(number, []):
            found = _find_title(text, entry.title, cursor)
            if found > cursor and text[cursor:found].strip():
                pieces.append((path(), text[cursor:found].strip("\n"), location))
            cursor = max(cursor, found)
            while stack and stack[-1].level >= entry.level:
                stack.pop()
            stack.append(entry)
        if text[cursor:].strip():
            pieces.append((path(), text[cursor:].strip("\n"), location))
    return _joined(pieces)


def _joined(pieces: list[tuple[tuple[str, ...], str, Location]]) -> tuple[Section, ...]:
    """Consecutive pieces under one heading path as one section with page turns."""
    sections: list[Section] = []
    for heading_path, text, location in pieces:
        last = sections[-1] if sections else None
        if last is not None and last.heading_path == heading_path:
            turn = (len(last.text) + 1, location)
            sections[-1] = Section(heading_path, last.text + "\n" + text, last.location,
                                   (*last.turns, turn))
        else:
            sections.append(Section(heading_path, text, location))
    return tuple(sections)


def _find_title(text: str, title: str, start: int) -> int:
    """Where the line holding `title` begins in `text` (from `start`), else `start`: the
    line that is the title (after its section number, "5.6.21 Files") if there is one, for
    a short title also appears in the text before its heading ("the Packages files")."""
    words = title.split()
    if not words:
        return start
    pattern = r"\s+".join(re.escape(word) for word in words)
    heading = re.compile(rf"^[ \t]*(?:[\d.]+[ \t]+)?{pattern}[ \t]*$",
                         re.IGNORECASE | re.MULTILINE).search(text, start)
    match = heading or re.compile(pattern, re.IGNORECASE).search(text, start)
    if match is None:
        return start
    return text.rfind("\n", start, match.start()) + 1 or start


def _outline(document: object, page_count: int) -> list[_Entry]:
    entries: list[_Entry] = []
    for item in document.get_toc(max_depth=16):  # type: ignore[attr-defined]
        if len(entries) >= _MAX_OUTLINE:
            break
        destination = item.get_dest()
        page = destination.get_index() if destination is not None else None
        title = " ".join((item.get_title() or "").split())
        if page is None or not 0 <= page < page_count or not title:
            continue
        entries.append(_Entry(int(item.level) + 1, title, int(page)))
    # PDFium lists entries in outline order; a citation needs them in page order.
    return sorted(entries, key=lambda entry: entry.page)


def _metadata_title(document: object) -> str:
    try:
        value = document.get_metadata_value("Title")  # type: ignore[attr-defined]
    except (KeyError, ValueError):
        return ""
    return " ".join(str(value or "").split())
