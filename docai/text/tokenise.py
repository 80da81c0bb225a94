"""Fold and split text into words and identifiers; an identifier's terms.

Choices, and why:

* Folding (NFKD, drop combining marks, casefold) happens *before* anything else, so
  "configuração" and "configuracao", "Ação" and "acao" become the same term whatever the
  user types.
* Technical identifiers are indexed whole *and* in parts: `os.path.join` gives
  `os.path.join`, `os`, `path`, `join`; `--global` gives `--global`, `global`;
  `CamelCase` gives `camelcase`, `camel`, `case`; `python3` gives `python3`, `python`,
  `3`; a CamelCase or snake_case name in a path is a whole term too
  (`requests.auth.HTTPProxyAuth` gives `httpproxyauth`, `.raise_for_status()` gives
  `raise_for_status`), as users ask for it by that name alone. Searching the exact
  identifier then ranks the passage that spells it first, while a prose question ("join
  paths") still reaches it. Whole identifiers are never stemmed; their alphabetic parts
  are (they behave like words in prose). Parts keep stop words (`os` in `os.path` is a
  module, not the Portuguese article).
* A Portuguese verb with an enclitic pronoun ("editá-la") is the verb alone, not an
  identifier: no passage spells the pair, so it would read as a subject the docs lack.
* Names joined by a slash ("Swagger/OpenAPI") are separate names.
* Order of the terms is text order but carries no meaning (bag of words).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from docai.text import language
from docai.text.stopwords import STOP_WORDS

# A token: an optional flag/path prefix, word characters joined by . / : - (no trailing
# punctuation, so a sentence's full stop is not part of `os.path.join.`), and a
# trailing + or # for names such as c++ and c#.
_TOKEN = re.compile(r"(?:--?|[~./]+)?\w+(?:[./:\-]+\w+)*[+#]*")
# Parts of an identifier: case-change, letter/digit and punctuation boundaries.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\W\d_A-Za-z]+")
_SEGMENT_SEPARATORS = re.compile(r"[./:\-]+")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]{2}")
# Names joined by slashes ("Swagger/OpenAPI", "GET/POST"): each is a name of its own, so a
# passage mentioning one does not mention the other. Single letters ("I/O") and pairs not
# all capitalised ("read/write", "Docs/index", "Library/preferences") stay one identifier.
_SLASHED_NAMES = re.compile(r"[A-Z][A-Za-z]+(?:/[A-Z][A-Za-z]+)+")
# A Portuguese verb with an enclitic pronoun ("editá-la", "instalá-lo", "chama-se"): the
# verb is the word, the pronoun a stop word.
_ENCLITIC = re.compile(
    r"([^\W\d_]{3,})-(?:o|a|os|as|lo|la|los|las|no|na|nos|nas|lhe|lhes|me|te|se)"
)
# Between a sentence's end and its first word: spaces, quotes, brackets, emphasis marks.
_SENTENCE_GAP = frozenset(" \t\r\n\"'`([*_-")
# Abbreviations whose full stop does not end a sentence ("e.g.", "i.e.", "ex.", "vs."; not
# "etc.", which often does).
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|ex|vs|cf|p\.ex)\.:?$", re.IGNORECASE)
_ABBREVIATION_SPAN = 8  # longest abbreviation and its stop, with room for \b to look back
_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")
_COMBINING_MARKS = re.compile(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+"
)


def fold_marks(text: str) -> str:
    """Decompose (NFKD) and drop combining marks, keeping case (needed to split CamelCase)."""
    text = _APOSTROPHE.sub("", text)
    if text.isascii():
        return text
    return _COMBINING_MARKS.sub("", unicodedata.normalize("NFKD", text))


def starts_sentence(text: str, start: int) -> bool:
    """Whether the word at `start` begins a sentence (its capital says nothing about a name)."""
    before = start - 1
    while before >= 0 and text[before] in _SENTENCE_GAP:
        before -= 1
    if before >= 0 and text[before] in ".:" and _ABBREVIATION.search(
        text, max(0, before - _ABBREVIATION_SPAN), before + 1
    ):
        return False  # "e.g. Netlify", "ex.: Vercel": an abbreviation ends, not a sentence
    return before < 0 or text[before] in ".!?:"


@dataclass(frozen=True)
class Tokens:
    """A text's tokens in order, each flagged as a plain word (to stem) or an identifier."""

    tokens: list[tuple[str, bool]]
    stop_words: list[str]
    names: frozenset[str]  # words written capitalised, other than the text's first word
    acronyms: frozenset[str]  # words written in capitals ("RAM", "PDF"), wherever they are

    def language(self) -> str:
        return language.guess_language(self.stop_words)

    def surely_english(self) -> bool:
        return language.surely_english(self.stop_words)


def tokenise(text: str) -> Tokens:
    """Fold and split `text`; drop stop words and single letters (digits stay).

    Capitalised words that do not start a sentence are remembered as likely names
    ("Netlify").
    """
    tokens: list[tuple[str, bool]] = []
    stop_words: list[str] = []
    names: set[str] = set()
    acronyms: set[str] = set()
    folded = fold_marks(text)
    for match in _TOKEN.finditer(folded):
        token, start = match.group(), match.start()
        pieces = token.split("/") if "/" in token and _SLASHED_NAMES.fullmatch(token) else (token,)
        for piece in pieces:
            token = piece
            enclitic = _ENCLITIC.fullmatch(token) if "-" in token else None
            if enclitic and token.islower():
                token = enclitic.group(1)
            if token.isalpha() and (token.islower() or not _CAMEL.search(token)):
                word = token.casefold()
                if word in STOP_WORDS:
                    stop_words.append(word)
                elif len(word) > 1:
                    tokens.append((word, True))
                    if not token.islower() and not starts_sentence(folded, start):
                        names.add(word)
                    if token.isupper():
                        acronyms.add(word)
            else:
                tokens.append((token, False))
            start += len(piece) + 1
    return Tokens(tokens, stop_words, frozenset(names), frozenset(acronyms))


def identifier_terms(token: str, stem: Callable[[str], str]) -> list[str]:
    """The whole identifier (unstemmed), each CamelCase or snake_case name in a dotted path,
    and its parts (alphabetic ones stemmed).

    The dotted names because API references print paths ("requests.auth.HTTPProxyAuth",
    "Response.raise_for_status", ".raise_for_status()") and users ask for the name alone.
    """
    whole = token.casefold()
    terms = [whole]
    bare = token.lstrip("-~./")
    segments = _SEGMENT_SEPARATORS.split(bare)
    if len(segments) > 1 or bare != token:  # a path, or a method named with its dot
        terms += [s.casefold() for s in segments if "_" in s or _CAMEL.search(s)]
    for part in _PARTS.findall(token):
        if part.isdigit():
            if part != whole:
                terms.append(part)
        elif len(part) > 1:
            terms.append(stem(part.casefold()))
    return terms


def document_terms(tokens: Tokens, stem: Callable[[str], str]) -> list[str]:
    """Every word stemmed with `stem`, every identifier whole and in parts."""
    terms: list[str] = []
    for token, is_word in tokens.tokens:
        if is_word:
            terms.append(stem(token))
        else:
            terms.extend(identifier_terms(token, stem))
    return terms
