"""`docai search`: show the passages retrieval finds, without calling the model.

With `--json`, stdout carries only JSON (one object, or one per line when questions come
from stdin), so scripts and the evaluation can consume it; everything else goes to stderr.
The plain output shows file names, headings and passages through `docai.cli.terminal_text`
(and names with `display_name`), so nothing in a document can drive the terminal.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from typing import Any

from docai import messages
from docai.cli.output.passages import (
    coverage_json,
    coverage_label,
    located,
    location_json,
    snippet,
)
from docai.cli.startup import dense_coverage, open_retrieval
from docai.cli.terminal_text import json_text, one_line
from docai.errors import DocaiError
from docai.loading import display_name
from docai.question_limit import check_question
from docai.records import Hit
from docai.retrieval.verdict import search
from docai.settings import VERBOSE, Settings

# A question echoed back ("no passage for: ...") is shortened to this many characters.
ECHO_WIDTH = 120


def run(settings: Settings, question: str | None) -> int:
    if question is None and sys.stdin is None:
        raise DocaiError(messages.SEARCH_NO_INPUT)
    if question is not None and not question.strip():
        raise DocaiError(messages.SEARCH_EMPTY_QUESTION)
    if question is not None:
        check_question(question)  # before the index opens: a 4 MB question costs nothing
    # Which embedder ranks by meaning is news once; a one-shot command says it with -v.
    opened = open_retrieval(settings, sys.stderr, announce=settings.verbosity >= VERBOSE)
    if question is None and sys.stdin.isatty():
        print(messages.SEARCH_TYPE_QUESTIONS, file=sys.stderr, flush=True)
    questions = [question] if question is not None else _stdin_questions()
    try:
        for position, query in enumerate(questions):
            hits = search(opened.index, query, settings.top_k, settings.min_coverage,
                          opened.dense)
            # A store's dense ranking embeds no candidate, so it has no such cost.
            cost = getattr(opened.dense, "last_question", None)
            if settings.verbosity >= VERBOSE and cost is not None:
                print(cost.note(), file=sys.stderr, flush=True)
            if settings.json_output:
                print(json_text(as_json(query, hits)), flush=True)
            else:
                header = question is None
                print(_human(query, hits, header=header, first=position == 0), flush=True)
        if settings.verbosity >= VERBOSE and opened.dense is not None:  # as the search left it
            print(dense_coverage(opened.dense), file=sys.stderr, flush=True)
    finally:
        opened.save_vectors()
    return 0


def as_json(query: str, hits: list[Hit]) -> dict[str, Any]:
    """The `--json` schema: sources relative to the docs folder with '/', best hit first.
    `score` orders the results (fused ranks); `coverage` is the share of the question each
    passage covers (0..1), comparable across passages and questions."""
    return {
        "query": query,
        "results": [
            {
                "source": hit.chunk.source,
                "heading": hit.chunk.heading,
                "text": hit.chunk.text,
                "score": float(hit.score),
                "coverage": coverage_json(hit),
                "chunk": hit.chunk.ordinal,
                "location": location_json(hit.chunk),
            }
            for hit in hits
        ],
    }


def _human(query: str, hits: list[Hit], *, header: bool, first: bool) -> str:
    lines = [] if first else [""]
    echoed = textwrap.shorten(one_line(query), width=ECHO_WIDTH, placeholder=" …")
    if header:
        lines.append(messages.SEARCH_QUERY_HEADER.format(query=echoed))
    if not hits:
        lines.append(messages.SEARCH_NO_RESULTS.format(query=echoed))
    for rank, hit in enumerate(hits, start=1):
        chunk = hit.chunk
        source = located(display_name(chunk.source), chunk.location)
        lines.append(
            messages.SEARCH_HIT.format(
                rank=rank, coverage=coverage_label(hit), source=source,
                heading=one_line(chunk.heading) if chunk.heading else source, chunk=chunk.ordinal,
            )
        )
        lines += ["   " + line for line in snippet(chunk.text)]
    return "\n".join(lines)


def _stdin_questions() -> Iterator[str]:
    """One question per non-blank line, read lazily so answers stream as lines arrive."""
    for line in sys.stdin:
        if line.strip():
            yield check_question(line.strip())
