"""The hand-edited word lists of docai/data/ stay well formed: a slip in an edit (an accent,
a capital, a repeated key, a stray space or tab) fails here rather than silently never
matching a folded word."""

from __future__ import annotations

import re
from collections import Counter
from importlib.resources.abc import Traversable

import pytest

from docai.text import wordlists
from docai.text.stopwords import STOP_WORDS

# Analysis folds before any lookup: no accents, lower case, apostrophes dropped.
_FOLDED_WORD = re.compile(r"[a-z]+")
_PHRASE = re.compile(r"[a-z]+(?: [a-z]+)+")
# English renderings are looked up as written ("i18n", "third-party"), one space apart.
_RENDERINGS = re.compile(r"[a-z0-9\-]+(?: [a-z0-9\-]+)*")


def _repeated(items: list[str]) -> list[str]:
    return [item for item, count in Counter(items).items() if count > 1]


@pytest.mark.parametrize("file", wordlists.WORD_LISTS, ids=lambda file: file.name)
def test_each_file_opens_with_its_header_and_has_clean_lines(file: Traversable) -> None:
    text = file.read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0].startswith(wordlists.COMMENT), "the header says what the file is"
    assert text.endswith("\n") and "\r" not in text
    for number, line in enumerate(lines, 1):
        assert line == line.strip(), f"{file.name}:{number}: spaces around {line!r}"
        if not line.startswith(wordlists.COMMENT):
            assert "  " not in line, f"{file.name}:{number}: double space in {line!r}"
            tabs = line.count(wordlists.SEPARATOR)
            assert tabs == (1 if file == wordlists.GLOSSARY and line else 0), (
                f"{file.name}:{number}: {tabs} tabs in {line!r}"
            )


@pytest.mark.parametrize(
    "file", [wordlists.PORTUGUESE_STOP_WORDS, wordlists.ENGLISH_STOP_WORDS],
    ids=lambda file: file.name,
)
def test_stop_words_are_single_folded_words_listed_once(file: Traversable) -> None:
    words = wordlists.entries(file)
    assert [word for word in words if not _FOLDED_WORD.fullmatch(word)] == []
    assert _repeated(words) == []


def test_question_scaffolding_is_folded_words_and_phrases_not_already_stop_words() -> None:
    entries = wordlists.entries(wordlists.QUESTION_SCAFFOLDING)
    assert [e for e in entries if not (_FOLDED_WORD.fullmatch(e) or _PHRASE.fullmatch(e))] == []
    assert _repeated(entries) == []
    # A stop word never reaches the scaffolding check: listing it here would be a slip.
    assert [e for e in entries if e in STOP_WORDS] == []


def test_glossary_keys_are_folded_words_listed_once_each_with_renderings() -> None:
    entries = wordlists.pairs(wordlists.GLOSSARY)
    keys = [key for key, _ in entries]
    assert [key for key in keys if not _FOLDED_WORD.fullmatch(key)] == []
    assert _repeated(keys) == []
    assert [(k, v) for k, v in entries if not _RENDERINGS.fullmatch(v)] == []
    assert [(k, v) for k, v in entries if _repeated(v.split())] == []


def test_synonym_groups_hold_two_or_more_distinct_words_and_differ() -> None:
    groups = wordlists.entries(wordlists.ENGLISH_SYNONYMS)
    assert [g for g in groups if not _PHRASE.fullmatch(g) or _repeated(g.split())] == []
    assert _repeated([" ".join(sorted(group.split())) for group in groups]) == []
