"""A follow-up question retrieved as what it means in its conversation, not as its bare words.

Only a question that depends on the conversation is a follow-up (`dependence.py`); the
context a caller passes is the thread it follows (`Conversation.context_for`), empty for a
question that stands alone, which is then retrieved exactly as in a fresh session.

"e como eu apago ele?" after "Onde o docai guarda o índice?" names a verb and a pronoun:
its bare words find every passage about deleting anything, or nothing at all. Read with
the question before it, it is about deleting the index cache. So the passages are ranked
for the earlier questions (`Conversation.context_for`) and the new one together, the new
one's words weighing twice as much as the earlier ones': BM25 and TF-IDF weigh a
question's term by how often it occurs in it, so the new question is simply counted twice.
Weighing them equally lets the old subject win over a new one ("Como instalo?" then "Qual
é o padrão de --num-ctx?" would be answered from the installation page); the new words
alone (the bare question) leave an elliptical follow-up without its subject.

The coverage bar (whether the docs answer it at all) is checked against the joined text:
"e o número de workers?" after "Qual é a porta padrão?" asks for the default number of
workers, and judged on its own Portuguese words over English docs it was refused although
the passage just used answers it. Context still cannot make the docs cover a subject they
never mention: a question that stands alone ("xyzzy?") has no context, and a name the docs
never use weighs more than every other concept of the joined text ("e no xyzzy?"). Nor
can joining take away coverage the conversation had: a question refused on the joined
text is answered as if asked alone when its own words are answered and so is the question
it leans on (`settle_in_context`).
No model call is needed, so retrieval stays deterministic and works with the server down.
Asking the model to rewrite the follow-up as a standalone question was the alternative;
it costs a model call before every follow-up and cannot be measured without a model.
`scripts/eval_followups.py` measures this method against the bare follow-up, the plain
joined text and the standalone question.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docai.retrieval.verdict import NotCovered, Query, Verdict, retrieve

if TYPE_CHECKING:
    from docai.retrieval.dense import DenseRanking
    from docai.retrieval.search_index import SearchIndex


def joined_question(question: str, context: Sequence[str]) -> str:
    """The earlier questions (oldest first) and the new one, as one text to search for."""
    return "\n".join([*context, question])


def weighted_question(question: str, context: Sequence[str]) -> str:
    """The text ranked for `question` after `context`: its words count twice."""
    return joined_question(question, [*context, question])


def query_in_context(question: str, context: Sequence[str]) -> Query:
    """What retrieval reads for `question` asked after `context` (oldest first)."""
    if not context:
        return Query.of(question)
    return Query(
        ranked=weighted_question(question, context),
        meaning=joined_question(question, context),
        covered=joined_question(question, context),
    )


@dataclass(frozen=True, slots=True)
class Settled:
    """What retrieval read a question of a conversation as, and what it found: passages,
    one whole file (which, like the passages, must cover what was read), or not covered."""

    query: Query
    verdict: Verdict


def settle_in_context(
    index: SearchIndex,
    question: str,
    context: Sequence[str],
    k: int,
    min_coverage: float | None = None,
    dense: DenseRanking | None = None,
    max_file_tokens: float = math.inf,
) -> Settled:
    """`retrieve` for a question of a conversation, and the reading it settles on.

    Read in its conversation, a question is judged on the joined text. When that refuses
    it although the question the conversation leads up to is answered by the docs, and the
    question's own words are answered too, it is answered as if asked alone: the joined
    text lost coverage in the joining (a new subject taken for a follow-up, a facet the
    earlier words do not share), and a fresh session would answer it. When the question it
    leans on is itself about something the docs never mention ("Como configuro o
    zorblax?"), a follow-up about it ("e a porta padrão dele?") is refused, whatever its
    everyday words would find on their own.
    """
    query = query_in_context(question, context)
    verdict = retrieve(index, query, k, min_coverage, dense, max_file_tokens)
    if not context or not isinstance(verdict, NotCovered):
        return Settled(query, verdict)
    leaned_on = query_in_context(context[-1], context[:-1])
    if isinstance(retrieve(index, leaned_on, k, min_coverage, dense, max_file_tokens),
                  NotCovered):
        return Settled(query, verdict)
    alone = Query.of(question)
    verdict_alone = retrieve(index, alone, k, min_coverage, dense, max_file_tokens)
    if isinstance(verdict_alone, NotCovered):
        return Settled(query, verdict)
    return Settled(alone, verdict_alone)
