"""How a question of a conversation is read for retrieval, and the one retrieval it gets.

Every decision docai makes about a question's conversation is made here, once, before
anything is retrieved (`reading_for`), and the reading is then retrieved in one pass
(`settle`): one ranking, one verdict, one prompt.

**Alone or in context.** A question that stands alone (`dependence.depends_on_conversation`)
is read exactly as in a fresh session. One that leans on the conversation ("e como eu
apago ele?" after "Onde o docai guarda o índice?") is read with its *thread*: the earlier
questions back to the last one that stood alone, at most `CONTEXT_QUESTIONS`, oldest
first. A chain of short follow-ups ("e no Mac?" then "e no Windows?") keeps its subject;
a topic switched three questions ago cannot steer it; a question asked again counts once.

**A refused follow-up does not steer what follows.** A dependent question the docs did not
cover ("e depois, como eu desfaço isso?") is left out of the thread: it added a facet the
docs lack, not a subject, and the next follow-up ("e no Mac, onde fica?") is about the
subject before it. A refused question that stood alone ("Como configuro o zorblax?") stays:
it *is* the subject of what follows, and a follow-up about it must be refused too.

**Ranked, embedded, judged.** In context, the passages are ranked for the thread and the new
question together, the new one's words weighing twice as much (BM25 and TF-IDF weigh a
term by how often the question uses it, so it is simply counted twice): weighing them
equally lets the old subject win over a new one, the new words alone leave an elliptical
follow-up without its subject. The dense ranking embeds, and the coverage bar judges, the
plain joined text: "e o número de workers?" after "Qual é a porta padrão?" asks for the
default number of workers, and judged on its own Portuguese words over English docs it
was refused although the passage just used answers it.

**Judged twice, ranked once.** Joining can also take coverage away: a new subject taken for
a follow-up, a facet the earlier words do not share. So when the joined text is refused,
the same passages (no second ranking) are judged on the question's own words, and answer
it when they cover them, unless its thread holds a refused question (then a follow-up
about a subject the docs never mention, "e qual é a porta padrão dele?", stays refused
whatever its everyday words would find).

No model call: retrieval stays deterministic and works with the server down. Asking the
model to rewrite the follow-up as a standalone question was the alternative; it costs a
model call before every follow-up and cannot be measured without a model.
`scripts/eval_followups.py` measures this reading against the bare follow-up, the plain
joined text and the standalone question (docs/evaluation.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.answer.conversation import Conversation, Turn, same_question
from docai.answer.dependence import depends_on_conversation
from docai.retrieval.verdict import NotCovered, Query, Verdict, judge, rank

if TYPE_CHECKING:
    from docai.retrieval.dense import DenseRanking
    from docai.retrieval.search_index import SearchIndex

# Earlier questions a follow-up is read with: the one it follows and the one before.
CONTEXT_QUESTIONS = 2


@dataclass(frozen=True, slots=True)
class Reading:
    """What retrieval reads for one question of a conversation: the question, its thread
    (earlier questions, oldest first; empty when it stands alone), and whether its own
    words may answer it when the joined text is refused (not when the thread holds a
    refused question)."""

    question: str
    context: tuple[str, ...] = ()
    own_words_may_answer: bool = False

    @property
    def query(self) -> Query:
        """The one query ranked: the question alone, or its thread and it, its own words
        counting twice (embedded and judged on the plain joined text)."""
        if not self.context:
            return Query.of(self.question)
        return Query(
            ranked=weighted_question(self.question, self.context),
            meaning=joined_question(self.question, self.context),
            covered=joined_question(self.question, self.context),
        )

    @property
    def coverage_texts(self) -> tuple[str, ...]:
        """What the passages are judged on, in turn, until one is covered."""
        covered = self.query.covered
        if self.context and self.own_words_may_answer:
            return (covered, self.question)
        return (covered,)


@dataclass(frozen=True, slots=True)
class Settled:
    """A reading, the verdict its one retrieval gave, and the text that verdict judged."""

    reading: Reading
    verdict: Verdict
    judged: str


def reading_for(question: str, conversation: Conversation | None = None) -> Reading:
    """How `question` is read after `conversation` (None: a one-shot question)."""
    if conversation is None or not depends_on_conversation(question):
        return Reading(question)
    thread = _thread(question, conversation.turns)
    if not thread:
        return Reading(question)
    return Reading(
        question,
        tuple(turn.question for turn in thread),
        own_words_may_answer=not any(turn.refused for turn in thread),
    )


def settle(
    index: SearchIndex,
    reading: Reading,
    k: int,
    min_coverage: float | None = None,
    dense: DenseRanking | None = None,
    max_file_tokens: float = math.inf,
) -> Settled:
    """The verdict on `reading` from one ranking: judged on each of its coverage texts in
    turn (`Reading.coverage_texts`), the first that is covered deciding; refused when none
    is."""
    candidates = rank(index, reading.query, k, dense)
    texts = reading.coverage_texts
    for text in texts:
        verdict = judge(index, candidates, text, k, min_coverage, max_file_tokens)
        if not isinstance(verdict, NotCovered):
            return Settled(reading, verdict, text)
    return Settled(reading, NotCovered(), texts[0])


def _thread(question: str, turns: Sequence[Turn]) -> list[Turn]:
    """The earlier turns `question` follows, oldest first: back to the last question that
    stood alone, at most `CONTEXT_QUESTIONS`, refused follow-ups left out, and neither the
    question itself nor a question asked twice counted again."""
    asked = same_question(question)
    newest_first: dict[str, Turn] = {}
    for turn in reversed(turns):
        if len(newest_first) == CONTEXT_QUESTIONS:
            break
        key = same_question(turn.question)
        if key == asked or key in newest_first:
            continue
        stood_alone = not depends_on_conversation(turn.question)
        if turn.refused and not stood_alone:
            continue
        newest_first[key] = turn
        if stood_alone:
            break
    return list(reversed(newest_first.values()))


def joined_question(question: str, context: Sequence[str]) -> str:
    """The earlier questions (oldest first) and the new one, as one text."""
    return "\n".join([*context, question])


def weighted_question(question: str, context: Sequence[str]) -> str:
    """The text ranked for `question` after `context`: its words count twice."""
    return joined_question(question, [*context, question])
