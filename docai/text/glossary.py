"""Portuguese -> English words of technical documentation, and English synonyms; for
questions only.

Why a glossary: users ask in Portuguese about docs that are often in English. Stemming
already joins cognates ("configuração" / "configuration"), but many everyday words differ
entirely ("pasta" / "folder", "busca" / "search", "padrão" / "default"). A question's
Portuguese words therefore also look up their usual English renderings; terms the docs do
not contain are ignored by the index, so a translation can only add matches, and
Portuguese docs are still found through the original words.

Why synonyms: a user describes a task in their own words ("modify the folder") while the
docs use others ("edit the directory"); stemming cannot join them. Only everyday words of
software docs, from general usage. Passages are never translated nor widened: the index
stays what the docs say.

Keys are folded (no accents, lower case) dictionary forms; `concepts` matches them by
Portuguese stem, so "pastas" and "temas" find "pasta" and "tema". Values are English
words separated by spaces; file order is kept (it orders a question's terms).
"""

from __future__ import annotations

from docai.text import wordlists

PORTUGUESE_TO_ENGLISH: dict[str, str] = dict(wordlists.pairs(wordlists.GLOSSARY))

# One group of interchangeable English words per entry, words separated by spaces.
ENGLISH_SYNONYMS: tuple[str, ...] = tuple(wordlists.entries(wordlists.ENGLISH_SYNONYMS))
