"""Plain text -> (title, sections): the whole file is one section.

A .txt file has no markup to trust for structure; guessing headings from short lines
would invent a structure the author never wrote, so the text is kept as it is.
"""

from __future__ import annotations

from docai.records import Section


def parse_text(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    """Title is the file stem; the one section's heading path is `(stem,)`."""
    body = text.strip("\n").rstrip()
    sections = (Section(heading_path=(stem,), text=body),) if body.strip() else ()
    return stem, sections
