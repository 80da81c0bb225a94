"""Retrieval evaluation: read a QA set, score rankings (hit@k, MRR), count refusals.

Pure functions over questions and retrieved chunks; `docai/cli/commands/evaluate.py` does the
I/O. A retrieved chunk is a *hit* for a question when its source is one of the question's
gold sources and its text contains that source's gold answer, both case-folded with
whitespace collapsed: the passage the model would need to answer is really there, not just
the right file. A question with empty `gold` is one the docs do not answer; the right
behaviour for it is a refusal (the `NotCovered` verdict of `docai.retrieval.verdict`).

Ranking and verdict are judged apart, as docai uses them: the ranking (hit@k, MRR) is what
`docai search` lists, the verdict decides whether `docai ask` answers (from passages or
from one whole file, a fallback) or refuses. A wrongly refused covered question counts as
a miss in the ranking figures too, since the user gets no answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from docai import messages
from docai.errors import DocaiError
from docai.records import Chunk, Hit
from docai.retrieval.verdict import Fallback, NotCovered, Verdict

K_VALUES = (1, 3, 10)
DEPTH = max(K_VALUES)  # MRR is cut at the same depth as the deepest hit@k


class QAFileError(DocaiError):
    """The QA file is missing, unreadable or malformed (message names file and line)."""


@dataclass(frozen=True, slots=True)
class Gold:
    source: str
    answer: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    gold: tuple[Gold, ...]
    type: str | None = None
    lang: str | None = None

    @property
    def covered(self) -> bool:
        """Whether the docs answer it (a question with no gold answer should be refused)."""
        return bool(self.gold)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How retrieval did on one question: rank of the first hit (1-based), refusal, and
    whether the answer would come from a whole file (fallback) rather than passages."""

    question: Question
    rank: int | None
    refused: bool
    fallback: bool = False


@dataclass(frozen=True, slots=True)
class Scores:
    """hit@k for each k in K_VALUES and MRR@DEPTH over `questions` covered questions."""

    questions: int
    hits: tuple[float, ...]
    mrr: float

    def hit_at(self, k: int) -> float:
        return self.hits[K_VALUES.index(k)]


@dataclass(frozen=True, slots=True)
class Refusals:
    uncovered: int
    uncovered_refused: int
    covered: int
    covered_refused: int
    uncovered_fallback: int = 0
    covered_fallback: int = 0


@dataclass(frozen=True, slots=True)
class Summary:
    overall: Scores
    by_type: tuple[tuple[str, Scores], ...]
    by_lang: tuple[tuple[str, Scores], ...]
    refusals: Refusals
    misses: tuple[str, ...]  # ids of covered questions with no hit in the top DEPTH


# --- reading a QA file ------------------------------------------------------------------

def parse_questions(lines: Iterable[str], name: str) -> tuple[Question, ...]:
    """Questions from JSON Lines text; blank lines are ignored.

    Raises QAFileError naming `name` and the 1-based line number of the first problem, so
    a hand-edited set can be fixed without guessing.
    """
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        question = _parse_line(line, name, number)
        if question.id in seen:
            raise _error(name, number, messages.EVAL_DUPLICATE_ID.format(id=question.id))
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise QAFileError(messages.EVAL_NO_QUESTIONS.format(file=name))
    return tuple(questions)


def _parse_line(line: str, name: str, number: int) -> Question:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise _error(name, number, messages.EVAL_BAD_JSON.format(reason=error.msg)) from None
    except RecursionError:  # `[[[[...` nested deeper than the parser's stack
        reason = messages.EVAL_TOO_DEEP
        raise _error(name, number, messages.EVAL_BAD_JSON.format(reason=reason)) from None
    if not isinstance(record, dict):
        raise _error(name, number, messages.EVAL_NOT_OBJECT)
    identifier = _text_field(record, "id", name, number)
    question = _text_field(record, "question", name, number)
    gold = record.get("gold")
    if not isinstance(gold, list):
        raise _error(name, number, messages.EVAL_BAD_GOLD.format())
    answers = []
    for item in gold:
        if not isinstance(item, dict):
            raise _error(name, number, messages.EVAL_BAD_GOLD.format())
        answers.append(Gold(_text_field(item, "source", name, number),
                            _text_field(item, "answer", name, number)))
    return Question(
        id=identifier,
        question=question,
        gold=tuple(answers),
        type=_optional_field(record, "type", name, number),
        lang=_optional_field(record, "lang", name, number),
    )


def _text_field(record: Mapping[str, object], field: str, name: str, number: int) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise _error(name, number, messages.EVAL_MISSING_FIELD.format(field=field))
    return value


def _optional_field(record: Mapping[str, object], field: str, name: str, number: int) -> str | None:
    value = record.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _error(name, number, messages.EVAL_MISSING_FIELD.format(field=field))
    return value


def _error(name: str, number: int, problem: str) -> QAFileError:
    return QAFileError(messages.EVAL_BAD_LINE.format(file=name, line=number, problem=problem))


# --- scoring ----------------------------------------------------------------------------

def fold(text: str) -> str:
    """Case-folded, whitespace collapsed: how answers and passages are compared."""
    return " ".join(text.casefold().split())


def is_hit(question: Question, chunk: Chunk) -> bool:
    folded = fold(chunk.text)
    return any(g.source == chunk.source and fold(g.answer) in folded for g in question.gold)


def first_hit_rank(question: Question, ranked: Sequence[Chunk]) -> int | None:
    """1-based rank of the first hit among the top DEPTH chunks, None when there is none."""
    for rank, chunk in enumerate(ranked[:DEPTH], start=1):
        if is_hit(question, chunk):
            return rank
    return None


def evaluate(
    questions: Sequence[Question],
    rank: Callable[[str, int], Sequence[Hit]],
    decide: Callable[[str], Verdict],
) -> list[Outcome]:
    """Per question: `decide(question)` gives docai's verdict (with the bar being
    evaluated), `rank(question, DEPTH)` the ranking scored when it is not a refusal."""
    outcomes = []
    for question in questions:
        verdict = decide(question.question)
        refused = isinstance(verdict, NotCovered)
        chunks = [] if refused else [hit.chunk for hit in rank(question.question, DEPTH)]
        outcomes.append(Outcome(question, first_hit_rank(question, chunks), refused,
                                isinstance(verdict, Fallback)))
    return outcomes


def score(ranks: Sequence[int | None]) -> Scores:
    """hit@k and MRR@DEPTH of first-hit ranks (None = no hit); all zero for no questions."""
    count = len(ranks)
    if count == 0:
        return Scores(0, tuple(0.0 for _ in K_VALUES), 0.0)
    hits = tuple(sum(1 for r in ranks if r is not None and r <= k) / count for k in K_VALUES)
    mrr = sum(1.0 / r for r in ranks if r is not None and r <= DEPTH) / count
    return Scores(count, hits, mrr)


def summarise(outcomes: Sequence[Outcome]) -> Summary:
    """Scores overall and per type / per language (covered questions only), and refusals."""
    covered = [o for o in outcomes if o.question.covered]
    uncovered = [o for o in outcomes if not o.question.covered]
    return Summary(
        overall=score([o.rank for o in covered]),
        by_type=_grouped(covered, lambda q: q.type),
        by_lang=_grouped(covered, lambda q: q.lang),
        refusals=Refusals(
            uncovered=len(uncovered),
            uncovered_refused=sum(1 for o in uncovered if o.refused),
            covered=len(covered),
            covered_refused=sum(1 for o in covered if o.refused),
            uncovered_fallback=sum(1 for o in uncovered if o.fallback),
            covered_fallback=sum(1 for o in covered if o.fallback),
        ),
        misses=tuple(o.question.id for o in covered if o.rank is None),
    )


def _grouped(
    outcomes: Sequence[Outcome], key: Callable[[Question], str | None]
) -> tuple[tuple[str, Scores], ...]:
    groups: dict[str, list[int | None]] = {}
    for outcome in outcomes:
        name = key(outcome.question)
        if name is not None:
            groups.setdefault(name, []).append(outcome.rank)
    return tuple((name, score(groups[name])) for name in sorted(groups))


def scores_json(scores: Scores) -> dict[str, float | int]:
    figures: dict[str, float | int] = {"questions": scores.questions}
    figures.update({f"hit@{k}": round(scores.hit_at(k), 4) for k in K_VALUES})
    figures[f"mrr@{DEPTH}"] = round(scores.mrr, 4)
    return figures


def summary_json(summary: Summary) -> dict[str, object]:
    """The figures as plain JSON values (what `docai eval --json` prints)."""
    refusals = summary.refusals
    return {
        "overall": scores_json(summary.overall),
        "by_type": {name: scores_json(s) for name, s in summary.by_type},
        "by_lang": {name: scores_json(s) for name, s in summary.by_lang},
        "refusals": {
            "uncovered": refusals.uncovered,
            "uncovered_refused": refusals.uncovered_refused,
            "covered": refusals.covered,
            "covered_refused": refusals.covered_refused,
            "uncovered_fallback": refusals.uncovered_fallback,
            "covered_fallback": refusals.covered_fallback,
        },
        "misses": list(summary.misses),
    }


# --- checking a QA set against its docs ---------------------------------------------------

def check_gold(questions: Iterable[Question], chunks: Iterable[Chunk]) -> list[str]:
    """Problems with gold answers: unknown source, or answer in none of its chunks.

    Checked against the chunks docai indexes, not the raw file, so an answer that exists
    only in markup, or that a chunk boundary cuts in two, is reported: such a question
    could never be a hit. Folding is the same as for hits. One English line per problem
    (for maintainers of the set).
    """
    passages: dict[str, list[str]] = {}
    for chunk in chunks:
        passages.setdefault(chunk.source, []).append(fold(chunk.text))
    problems = []
    for question in questions:
        for gold in question.gold:
            answer = fold(gold.answer)
            if gold.source not in passages:
                problems.append(f"{question.id}: unknown source {gold.source!r}")
            elif not any(answer in text for text in passages[gold.source]):
                problems.append(f"{question.id}: {gold.answer!r} is in no chunk of {gold.source}")
    return problems
