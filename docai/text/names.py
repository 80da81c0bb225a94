"""Multi-word names in a question ("VS Code", "AWS Lambda", "Google Drive"), for refusal.

Why: a name of several words is one thing, and its words are often everyday ones the docs
use apart ("code", "server", "drive", "lambda"), so word by word a question about "VS
Code" looks covered by docs that merely say "code". Only the words side by side mention
the thing. Positions are not indexed, so `retrieval.search_index` looks the name up in
the chunks' text with `name_pattern`, a byte pattern that runs on the stored UTF-8 text
without decoding it.
"""

from __future__ import annotations

import re
import unicodedata

from docai.byte_text import key_bytes
from docai.text.stopwords import STOP_WORDS
from docai.text.tokenise import fold_marks, starts_sentence

# A word as written: up to the next space, without the quotes or brackets around it.
_WORD = re.compile(r"\S+")
_LEADING = re.compile(r"^[\"'‘“(\[]+")
_TRAILING = re.compile(r"(['’]s)?([\"'’”)\].,;:!?]*)$")
# A question typed in Title Case ("How To Use Flask Blueprints In My Project") capitalises
# most words, stop words included, so runs of capitals say nothing there.
_TITLE_CASE_SHARE = 0.5


def multiword_names(question: str) -> tuple[tuple[str, ...], ...]:
    """The runs of two or more capitalised words in `question`, as their words.

    A run never starts a sentence ("Configure Sphinx so..." names nothing), and ends at a
    stop word ("Read the Docs"), at punctuation or after a possessive ("Flask's Jinja
    environment" names nothing; "VS Code's terminal" names "VS Code").
    """
    words = [(match.start(), match.group()) for match in _WORD.finditer(question)]
    if _title_case(question, words):
        return ()
    names: list[tuple[str, ...]] = []
    run: list[str] = []
    for start, raw in words:
        leading = _LEADING.match(raw)
        if leading:
            _close(run, names)
            start, raw = start + leading.end(), raw[leading.end():]
        word, trailing = _split_trailing(raw)
        if _is_name_word(word) and (run or not starts_sentence(question, start)):
            run.append(word)
        else:
            _close(run, names)
        if trailing:
            _close(run, names)
    _close(run, names)
    return tuple(dict.fromkeys(names))


def name_pattern(words: tuple[str, ...]) -> re.Pattern[bytes]:
    """A pattern for the name in UTF-8 text: whole words, any spacing, any case, with or
    without accents ("Codigo Aberto" finds "Código  aberto")."""
    folded = [fold_marks(word).casefold() for word in words]
    body = rb"[\s\-]+".join(b"".join(_letter(char) for char in word) for word in folded)
    return re.compile(rb"(?<![\w\x80-\xff])" + body + rb"(?![\w\x80-\xff])", re.IGNORECASE)


def _title_case(question: str, words: list[tuple[int, str]]) -> bool:
    """Whether most words are capitalised, not counting those that always are (a
    sentence's first word, English "I")."""
    free = [word for start, word in words
            if word != "I" and not starts_sentence(question, start)]
    return sum(word[:1].isupper() for word in free) > _TITLE_CASE_SHARE * len(free)


def _split_trailing(raw: str) -> tuple[str, str]:
    """The word, and the punctuation or possessive after it ("Code's" -> "Code", "'s")."""
    match = _TRAILING.search(raw)
    cut = match.start() if match else len(raw)
    return raw[:cut], raw[cut:]


def _is_name_word(word: str) -> bool:
    return word[:1].isupper() and fold_marks(word).casefold() not in STOP_WORDS


def _close(run: list[str], names: list[tuple[str, ...]]) -> None:
    if len(run) >= 2:
        names.append(tuple(run))
    run.clear()


def _accented_forms() -> dict[str, bytes]:
    """Each ASCII letter -> the UTF-8 forms of the Latin letters that fold to it."""
    forms: dict[str, list[bytes]] = {}
    for code in range(0xC0, 0x250):
        char = chr(code)
        base = unicodedata.normalize("NFKD", char)[:1].casefold()
        if base.isascii() and base.isalpha() and char != base:
            forms.setdefault(base, []).append(re.escape(char.encode()))
    return {base: b"|".join(found) for base, found in forms.items()}


_ACCENTED = _accented_forms()


def _letter(char: str) -> bytes:
    plain = re.escape(key_bytes(char))  # the bytes the chunk table stores it as
    accented = _ACCENTED.get(char)
    return b"(?:" + plain + b"|" + accented + b")" if accented else plain
