"""Whether a question leans on the conversation before it or stands alone, told from its words.

"e o número de workers?" after "Qual é a porta padrão?" asks for the default number of
workers: read alone, its words name no subject and the docs seem not to cover it. "Quantas
cópias de backup são mantidas?" after questions about ports and rate limits asks about
backups and nothing else: read with them, the old subjects pull their passages above the
new one. So each question is first told apart (`reading.reading_for` asks this module),
and only one that depends on the conversation is retrieved and judged with it; one that
stands alone is retrieved exactly as in a fresh session.

A question depends when it says so in its words, as a reader would notice: it opens with a
connective that continues the last turn ("e …?", "and …?", "what about …?"), it uses a word
that points back (a third-person pronoun, a demonstrative, "lá", "there", "instead") before
naming anything it could point at, or it has no word of its own to search for ("e ele?").
"Meu notebook Debian perde o Wi-Fi toda noite; como faço ele reconectar sozinho?" says
what "ele" is: a pointing word after four concepts of the question's own points inside it
(`ANTECEDENT_CONCEPTS`, chosen on the follow-up sets already scored, then checked once on
a blind one: docs/evaluation.md). The words are closed classes of Portuguese and English,
kept in `data/followup_markers.txt`. No model call: the decision is
deterministic, instant and works with the server down; the alternatives (a classifier, or
asking the model to rewrite every follow-up) cannot be measured without a model.
"""

from __future__ import annotations

import re
from functools import cache

from docai.text.analysis import default_analyzer
from docai.text.wordlists import FOLLOWUP_MARKERS, entries

_WORD = re.compile(r"[^\W_]+")
# Concepts before a pronoun that give it an antecedent in the question itself.
ANTECEDENT_CONCEPTS = 4


class _Markers:
    """The marker file, parsed: connectives, phrases to drop, words that point back."""

    def __init__(self, lines: list[str]) -> None:
        self.openers = tuple(line[1:].split() for line in lines if line.startswith("^"))
        self.empty_phrases = tuple(line[1:].split() for line in lines if line.startswith("!"))
        self.references = frozenset(line for line in lines if line[0] not in "^!")


@cache
def _markers() -> _Markers:
    return _Markers(entries(FOLLOWUP_MARKERS))


def words_of(question: str) -> list[str]:
    """The question's words, lower case, accents kept ("está" is not "esta")."""
    return _WORD.findall(question.casefold())


def depends_on_conversation(question: str) -> bool:
    """True when `question` can only be understood with the questions before it."""
    markers = _markers()
    words = _without_phrases(words_of(question), markers.empty_phrases)
    if any(words[: len(opener)] == opener for opener in markers.openers):
        return True
    pointing = next((i for i, word in enumerate(words) if word in markers.references), None)
    if pointing is not None and not _names_its_own_subject(words[:pointing]):
        return True
    return not default_analyzer().query_concepts(question)


def _names_its_own_subject(before: list[str]) -> bool:
    """Whether the words before a pronoun already name what it can point at: "The importer
    crashed halfway through my upload; can it resume?" says what "it" is, "how do I turn
    it off?" does not. Counted in searchable concepts: stop words and question scaffolding
    ("how do I", "como eu") name nothing."""
    return len(default_analyzer().query_concepts(" ".join(before))) >= ANTECEDENT_CONCEPTS


def _without_phrases(words: list[str], phrases: tuple[list[str], ...]) -> list[str]:
    kept: list[str] = []
    position = 0
    while position < len(words):
        phrase = next((p for p in phrases if words[position: position + len(p)] == p), None)
        if phrase is None:
            kept.append(words[position])
            position += 1
        else:
            position += len(phrase)
    return kept
