"""What a shared store returns is untrusted input: names that stay inside the collection,
text cleaned as a local file's is.

Anyone who can write the database (a compromised indexer, a hostile admin, a restored
backup) chooses its rows. A source named `/home/u/private/secret.md` or
`../private/secret.md` must never make a client read that file from its own disk and send
it to the model; chunk text and headings must not carry terminal escape sequences or
control characters a local file's loader would have removed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from docai.folders import file_inside
from docai.records import Chunk

# Control characters a loader removes from a local file (tab and newline stay), and ANSI/VT100
# sequences (CSI, OSC), which would recolour or rewrite the user's terminal.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\][^\x07\x1b]{0,256}\x07|)")
# A name's characters that no docs folder's relative path needs, and that could steer a
# path or a terminal: controls, line separators, bidirectional overrides, backslashes.
_UNSAFE_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\\\\]")


def safe_source(name: str) -> bool:
    """Whether `name` can be a file of a docs folder: relative, with `/`, no `..`, nothing
    that steers a path or a terminal."""
    if not name or _UNSAFE_NAME.search(name):
        return False
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts and "." not in path.parts[:1]


def local_file(docs_dir: Path, name: str) -> Path | None:
    """The file `name` stands for in the client's own `docs_dir`, or None when the name is
    not a safe one or the file (through any link) lies outside the folder."""
    if not safe_source(name):
        return None
    return file_inside(docs_dir, name)


def clean_text(text: str) -> str:
    """`text` as a local file's loader leaves it: '\\n' newlines, no escape sequences, no
    control characters but tab and newline."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _TERMINAL_ESCAPE.sub("", text)
    return _CONTROLS.sub("", text)


def clean_chunk(chunk: Chunk) -> Chunk:
    """A chunk read from the database, its text and headings cleaned (its source is kept as
    stored, so citations match the collection; `local_file` decides whether it is opened)."""
    return replace(chunk, text=clean_text(chunk.text),
                   heading_path=tuple(clean_text(part) for part in chunk.heading_path))
