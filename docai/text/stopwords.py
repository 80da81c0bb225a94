"""Portuguese and English stop words, already case- and accent-folded.

Why our own lists: questions are short, so one noise word ("como", "what", "posso") that
happens to be rare in the docs can outrank the word that matters. The lists therefore
cover not only articles, prepositions, pronouns and auxiliaries but also question words
and the verbs people wrap questions in ("como faço para...", "how do I..."). Content verbs
that name an action in the docs (instalar, configurar, install, run) are *not* here.
Most of Snowball's lists are included (each file's header says which of its words are
not, and why); they are not read from bm25s at run time because importing it loads
scipy.sparse, and because taking them whole would change the terms.

Words are stored folded (no accents, lower case) because analysis folds before looking
them up: "não" and "nao" are the same stop word. The two language sets are also used to
guess the language of a passage (`language`), so words common to both languages ("a",
"do", "no", "se") count for neither there.
"""

from __future__ import annotations

from docai.text import wordlists

PORTUGUESE: frozenset[str] = frozenset(wordlists.entries(wordlists.PORTUGUESE_STOP_WORDS))
ENGLISH: frozenset[str] = frozenset(wordlists.entries(wordlists.ENGLISH_STOP_WORDS))
STOP_WORDS: frozenset[str] = PORTUGUESE | ENGLISH

# Words that wrap a question ("is there a way to", "is it possible", "what now?") but never
# name its subject, in either language. Dropped from questions only: in a passage they are
# ordinary prose and cost nothing, but in a short question a rare one ("possible") would
# both pull the ranking towards passages that happen to use it and, when the docs lack
# it, lower the coverage that decides refusal.
_SCAFFOLDING = wordlists.entries(wordlists.QUESTION_SCAFFOLDING)
QUESTION_SCAFFOLDING: frozenset[str] = frozenset(e for e in _SCAFFOLDING if " " not in e)
# Phrases that wrap a question the same way but whose words may name a subject elsewhere
# ("para que serve X?"; `mkdocs serve`): dropped from questions as a whole phrase only.
QUESTION_SCAFFOLDING_PHRASES: tuple[str, ...] = tuple(e for e in _SCAFFOLDING if " " in e)

# Words that only one language uses: counting them tells which stemmer suits a passage.
PORTUGUESE_ONLY: frozenset[str] = PORTUGUESE - ENGLISH
ENGLISH_ONLY: frozenset[str] = ENGLISH - PORTUGUESE
