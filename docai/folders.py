"""A folder the user names (`--docs`, `--cache-dir`, `DOCAI_DOCS`, `DOCAI_CACHE_DIR`, the
config file's `docs`), read one way whatever it came from.

Why one reader: each origin used to be read its own way, and each way had its own hole. A
variable taken verbatim made `~/c` a folder literally named `~` in the current folder (the
next `rm -rf ~` a disaster) and `"   "` a folder of spaces; `~nosuchuser/x` and a path too
long for the system ended in a traceback-shaped "unexpected error"; a NUL made Python refuse
the path deep inside the index. Here every value is checked before any work, and a bad one
is a `SettingsError` naming where it came from and what to fix (one line, exit status 2).
"""

from __future__ import annotations

import os
from pathlib import Path

from docai import messages
from docai.errors import SettingsError

# Linux's limits (PATH_MAX, NAME_MAX): a longer path fails in every system call.
PATH_LIMIT = 4096
NAME_LIMIT = 255
# A bad value is quoted in the error up to this many characters.
QUOTED = 120


def user_folder(value: str | os.PathLike[str], origin: str) -> Path:
    """`value` as a folder path, `~` and `~user` expanded; `origin` names where it came
    from in the error ("--docs", "a variável DOCAI_CACHE_DIR", a config file's key).

    Blank text (spaces only) is refused rather than read as a folder of spaces."""
    text = os.fspath(value)
    if not text.strip():
        raise SettingsError(messages.FOLDER_BLANK.format(origin=origin))
    quoted = text if len(text) <= QUOTED else text[:QUOTED] + "…"
    if "\0" in text:
        raise SettingsError(messages.FOLDER_NUL.format(origin=origin, value=quoted))
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # `~name` with no such user (or no home folder at all)
        user = text.split("/", 1)[0][1:]
        raise SettingsError(messages.FOLDER_NO_USER.format(
            origin=origin, user=user, value=quoted)) from None
    encoded = os.fsencode(path)
    if len(encoded) >= PATH_LIMIT or any(len(part) > NAME_LIMIT for part in encoded.split(b"/")):
        raise SettingsError(messages.FOLDER_TOO_LONG.format(
            origin=origin, value=quoted, length=len(encoded), limit=PATH_LIMIT - 1,
            name_limit=NAME_LIMIT))
    return path


def file_inside(docs_dir: Path, source: str, link_roots: tuple[str, ...] = ()) -> Path | None:
    """The file `source` names in `docs_dir`, or None when it is missing or the name leads,
    through `..` or any link, outside the folder (and outside each of `link_roots`, the
    user's folders when several are read as one)."""
    root = docs_dir.expanduser().resolve()
    try:
        path = (root / source).resolve()
    except (OSError, RuntimeError):
        return None
    allowed = (root, *(Path(folder) for folder in link_roots))
    inside = any(path.is_relative_to(folder) for folder in allowed)
    return path if inside and path.is_file() else None
