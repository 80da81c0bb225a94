"""MDX (Docusaurus, Nextra) -> sections: Markdown with JSX, read as its words.

There is no MDX parser in Python, so the MDX-only syntax is recognised around markdown-it:
- top-level `import` / `export` statements (ES modules, up to the next blank line) are
  dropped: code, never prose;
- `{/* comments */}` are dropped;
- Docusaurus admonitions (`:::note Title` ... `:::`) become MyST ones (`:::{note} Title`),
  which the Markdown path already reads as a titled note;
- JSX components (`<Tabs>`, `<TabItem value="pip">`) are left to markdown-it, which sees
  them as HTML: their text children are kept, their tags and props are not.
Everything else (front matter title, headings, code, tables) is the Markdown path's, and
so are the line numbers a citation shows.
"""

from __future__ import annotations

import re

from docai.loading.markdown import parse_markdown
from docai.records import Section

_ESM = re.compile(r"(?:import|export)\b")
_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_DOCUSAURUS_ADMONITION = re.compile(r"(?P<indent>[ ]*)(?P<colons>:{3,})(?P<kind>[A-Za-z]+)\b")
_FENCE = re.compile(r"[ ]*(`{3,}|~{3,})")
# A JSX component's opening, closing or self-closing tag (capitalised, props may hold
# `{...}` expressions two levels deep): dropped, its text children stay.
_BRACED = r"\{(?:[^{}]|\{[^{}]*\})*\}"
_JSX_TAG = re.compile(r"</?[A-Z][\w.]*(?:[^<>{}]|" + _BRACED + r")*/?>")


def parse_mdx(text: str, stem: str) -> tuple[str, tuple[Section, ...]]:
    return parse_markdown(as_markdown(text), stem)


def as_markdown(text: str) -> str:
    """MDX rewritten as the Markdown the Markdown path reads, line for line (a dropped
    line becomes blank, so line numbers stay the file's)."""
    text = _COMMENT.sub(lambda match: "\n" * match.group().count("\n"), text)
    lines = text.split("\n")
    fence: str | None = None
    in_statement = False
    for number, line in enumerate(lines):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        if in_statement:
            in_statement = bool(line.strip())
            lines[number] = ""
        elif _ESM.match(line):
            in_statement = True
            lines[number] = ""
        elif admonition := _DOCUSAURUS_ADMONITION.match(line):
            rest = line[admonition.end():]
            lines[number] = (f"{admonition['indent']}{admonition['colons']}"
                             f"{{{admonition['kind'].lower()}}}{rest}")
        elif "<" in line:
            lines[number] = _JSX_TAG.sub("", line)
    return "\n".join(lines)
