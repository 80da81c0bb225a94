"""`docai eval QA.jsonl`: measure retrieval against questions with known answers.

Reads the QA file first (a malformed file fails before any indexing), opens the index the
way every command does, then judges each question exactly as `docai ask` would (same
method, same coverage bars: answer from passages, fall back to one file, or refuse) and
prints hit@1/3/10, MRR@10, the refusal and the fallback counts.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path

from docai import messages
from docai.answer.answerer import retrieve_as_configured
from docai.cli.startup import open_retrieval
from docai.cli.terminal_text import json_text, one_line
from docai.retrieval import evaluation
from docai.retrieval.evaluation import K_VALUES, QAFileError, Question, Scores, Summary
from docai.retrieval.verdict import search
from docai.settings import Settings

# The largest questions file read (a million short questions); `/dev/zero` is not one.
MAX_QA_BYTES = 256 << 20


def run(settings: Settings, qa_file: Path) -> int:
    questions = load_questions(qa_file)
    opened = open_retrieval(settings, sys.stderr, progress=not settings.json_output)
    index, dense = opened.index, opened.dense
    try:
        outcomes = evaluation.evaluate(
            questions,
            lambda question, k: search(index, question, k, min_coverage=0.0, dense=dense),
            lambda question: retrieve_as_configured(index, question, settings, dense),
        )
    finally:
        opened.save_vectors()
    summary = evaluation.summarise(outcomes)
    min_coverage = index.passage_bar(settings.min_coverage)
    if settings.json_output:
        figures = {
            "file": str(qa_file),
            "docs": str(settings.docs_dir),
            "retrieval": settings.retrieval,
            "min_coverage": min_coverage,
            **evaluation.summary_json(summary),
        }
        print(json_text(figures))
    else:
        header = messages.EVAL_TITLE.format(
            file=one_line(str(qa_file)), questions=len(questions),
            covered=summary.refusals.covered,
        )
        settings_line = messages.EVAL_SETTINGS.format(
            docs=one_line(str(settings.docs_dir)), method=settings.retrieval,
            min_coverage=f"{min_coverage:g}",
        )
        print("\n".join([header, settings_line, "", *table_lines(summary)]))
    return 0


def load_questions(qa_file: Path) -> tuple[Question, ...]:
    try:
        with open(qa_file, "rb") as handle:  # a pipe too: `docai eval <(gerar-perguntas)`
            raw = handle.read(MAX_QA_BYTES + 1)
        if len(raw) > MAX_QA_BYTES:
            raise OSError(errno.EFBIG, messages.EVAL_FILE_TOO_LARGE.format(limit=MAX_QA_BYTES))
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        problem = messages.EVAL_FILE_UNREADABLE.format(file=qa_file, reason=reason)
        raise QAFileError(problem) from None
    return evaluation.parse_questions(text.splitlines(), str(qa_file))


def table_lines(summary: Summary) -> list[str]:
    """The pt-BR table: one row overall, per type, per language; then refusals and misses."""
    lines: list[str] = []
    if summary.overall.questions:
        rows = [(messages.EVAL_OVERALL, summary.overall)]
        rows += [(messages.EVAL_TYPE.format(name=name), s) for name, s in summary.by_type]
        rows += [(messages.EVAL_LANG.format(name=name), s) for name, s in summary.by_lang]
        width = max(len(messages.EVAL_HEADER), *(len(name) for name, _ in rows))
        columns = [messages.EVAL_QUESTIONS, *(f"hit@{k}" for k in K_VALUES), "MRR@10"]
        lines.append(f"{messages.EVAL_HEADER:<{width}}  " + "  ".join(columns))
        lines += [_row(name, scores, width, columns) for name, scores in rows]
    else:
        lines.append(messages.EVAL_NO_COVERED)
    refusals = summary.refusals
    lines += [
        "",
        messages.EVAL_VERDICT_REFUSALS,
        messages.EVAL_UNCOVERED_REFUSED.format(
            refused=refusals.uncovered_refused, total=refusals.uncovered
        ),
        messages.EVAL_COVERED_REFUSED.format(
            refused=refusals.covered_refused, total=refusals.covered
        ),
        messages.EVAL_FALLBACKS.format(
            covered=refusals.covered_fallback, uncovered=refusals.uncovered_fallback
        ),
    ]
    if summary.misses:
        lines += ["", messages.EVAL_MISSES.format(ids=one_line(", ".join(summary.misses)))]
    return lines


def _row(name: str, scores: Scores, width: int, columns: list[str]) -> str:
    values = [str(scores.questions), *(f"{h:.2f}" for h in scores.hits), f"{scores.mrr:.2f}"]
    cells = "  ".join(
        value.rjust(len(column)) for value, column in zip(values, columns, strict=True)
    )
    return f"{name:<{width}}  {cells}"
