"""Multi-word names in a question ("VS Code", "AWS Lambda", "Google Drive"), for refusal.

Why: a name of several words is one thing, and its words are often everyday ones the docs
use apart ("code", "server", "drive", "lambda"), so word by word a question about "VS
Code" looks covered by docs that merely say "code". Only the words side by side mention
the thing. Positions are not indexed, so `relevance` asks the text: a passage mentions a
multi-word name when its folded text contains the folded name.
"""

from __future__ import annotations

import re

from docai.analysis import fold_marks
from docai.stopwords import STOP_WORDS

# A word as written: up to the next space. Trailing punctuation ends a name after it.
_WORD = re.compile(r"\S+")
_TRAILING = re.compile(r"(['’]s)?([\"'’”)\].,;:!?]*)$")
_CAPITALISED = re.compile(r"[A-Z][\w.+#-]*")
_SPACES = re.compile(r"\s+")
# A question typed in Title Case ("How To Deploy To Netlify") capitalises every word, so
# runs of capitals say nothing there.
_TITLE_CASE_SHARE = 0.5


def fold_text(text: str) -> str:
    """`text` as names are looked up in it: accents and case folded, spaces collapsed."""
    return _SPACES.sub(" ", fold_marks(text).casefold())


def multiword_names(question: str) -> tuple[str, ...]:
    """The runs of two or more capitalised words in `question`, folded (see `fold_text`).

    A stop word ("Read the Docs", "Como") or punctuation ends a run; a possessive "'s"
    belongs to the name ("VS Code's terminal" names "vs code").
    """
    words = _WORD.findall(question)
    names: list[str] = []
    run: list[str] = []
    capitalised = 0
    for raw in words:
        match = _TRAILING.search(raw)
        word, punctuation = raw[: match.start()], match.group(2)
        is_name = bool(_CAPITALISED.fullmatch(word)) and word.casefold() not in STOP_WORDS
        capitalised += is_name
        if is_name:
            run.append(word)
        if not is_name or punctuation:
            _close(run, names)
    _close(run, names)
    if capitalised > _TITLE_CASE_SHARE * len(words):
        return ()
    return tuple(dict.fromkeys(fold_text(name) for name in names))


def _close(run: list[str], names: list[str]) -> None:
    if len(run) >= 2:
        names.append(" ".join(run))
    run.clear()
