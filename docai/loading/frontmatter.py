"""Split YAML front matter (`---` ... `---` at the very start) from a Markdown body.

Front matter is metadata for site generators, not prose: indexing it would make `layout:`
or `tags:` lines answer questions. Only `title:` is read, with a line match rather than a
YAML parser, because that is the one field docai uses and a YAML dependency is not worth it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"\A---[ \t]*\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$\n?", re.MULTILINE)
_TITLE = re.compile(r"^title[ \t]*:[ \t]*(?P<value>.*?)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FrontMatter:
    title: str | None
    body: str


def split_front_matter(text: str) -> FrontMatter:
    """Return the body without front matter, and its `title:` if it has one.

    Without a closing `---` (or `...`) line the opening `---` is an ordinary thematic break,
    so the text is returned untouched.
    """
    opening = _OPEN.match(text)
    if opening is None:
        return FrontMatter(title=None, body=text)
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return FrontMatter(title=None, body=text)
    header = text[opening.end() : closing.start()]
    match = _TITLE.search(header)
    title = _unquote(match.group("value")) if match else ""
    return FrontMatter(title=title or None, body=text[closing.end() :])


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    return value
