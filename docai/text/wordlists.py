"""The hand-kept word lists of `docai/data/`, and how they are read.

Why data files: the lists are data people edit a word at a time (one entry per line, each
file's header says what it holds and how to edit it); as Python they buried the code. The
modules that use a list read it once, at import, into plain frozensets, tuples and dicts.
`WORD_LISTS` names every file, so `analysis.ANALYZER_VERSION` hashes them all.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

_DATA = files("docai") / "data"

PORTUGUESE_STOP_WORDS = _DATA / "stopwords_pt.txt"
ENGLISH_STOP_WORDS = _DATA / "stopwords_en.txt"
QUESTION_SCAFFOLDING = _DATA / "question_scaffolding.txt"
GLOSSARY = _DATA / "glossary_pt_en.tsv"
ENGLISH_SYNONYMS = _DATA / "synonyms_en.txt"
# Read by docai/answer/dependence.py, for questions only (in WORD_LISTS like every file here).
FOLLOWUP_MARKERS = _DATA / "followup_markers.txt"
# Generated from the tokenizer by scripts/make_token_words.py, not kept by hand.
ENGLISH_SINGLE_TOKENS = _DATA / "english_single_tokens.txt"
# Generated from simplemma's dictionaries by scripts/make_vocabularies.py (`vocabulary`):
# sorted hashes of every word form (.npy, not text: 0.85 million Portuguese forms). Not in
# WORD_LISTS: they decide refusal, not the terms an index holds.
PORTUGUESE_VOCABULARY = _DATA / "vocabulary_pt.npy"
ENGLISH_VOCABULARY = _DATA / "vocabulary_en.npy"
VOCABULARIES: tuple[Traversable, ...] = (PORTUGUESE_VOCABULARY, ENGLISH_VOCABULARY)

WORD_LISTS: tuple[Traversable, ...] = (
    PORTUGUESE_STOP_WORDS,
    ENGLISH_STOP_WORDS,
    QUESTION_SCAFFOLDING,
    GLOSSARY,
    ENGLISH_SYNONYMS,
    ENGLISH_SINGLE_TOKENS,
    FOLLOWUP_MARKERS,
)

COMMENT = "#"
SEPARATOR = "\t"


def entries(file: Traversable) -> list[str]:
    """The file's lines in order, without blank lines and comments (lines starting with #)."""
    lines = (line.strip() for line in file.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith(COMMENT)]


def pairs(file: Traversable) -> list[tuple[str, str]]:
    """The file's entries as (key, value), split at their one tab."""
    found = []
    for entry in entries(file):
        key, value = entry.split(SEPARATOR)  # anything but one tab is a mistake: fail loudly
        found.append((key, value))
    return found
