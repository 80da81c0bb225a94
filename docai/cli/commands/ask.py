"""`docai ask "PERGUNTA"`: one answer streamed to stdout, its sources after it.

The question may come from standard input instead: with `-`, or with no words when stdin is
not a terminal (`echo "Como instalo?" | docai ask`).

Exit status: 0 when docai answered, including "the docs do not cover this" (a correct,
grounded answer, decided without the model); 1 when the model could not answer (server
down, model missing, stream broken), in which case the best passages are still printed so
the user gets something useful; 2 for bad input (as every command); 130 when Ctrl-C stops
the answer.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from docai import messages
from docai.answer.answerer import Answerer
from docai.answer.conversation import Conversation
from docai.answer.recording import TurnRecorder
from docai.cli.output.answer_json import JsonAnswer
from docai.cli.output.control_echo import no_control_echo
from docai.cli.output.refusal import refusal_line
from docai.cli.output.render import AnswerPrinter
from docai.cli.repl.sessions import local_time, resumed
from docai.cli.session_log import SessionLog, conversation_from, record_answer
from docai.cli.startup import open_retrieval
from docai.cli.terminal_text import json_text, one_line
from docai.llm.backends import make_backend
from docai.question_limit import MAX_QUESTION_CHARS, QuestionTooLong, check_question
from docai.retrieval.search_index import SearchIndex
from docai.retrieval.verdict import NotCovered
from docai.settings import VERBOSE, Settings
from docai.text.analysis import surely_english


def run(settings: Settings, words: Sequence[str], *, resume: int | None = None) -> int:
    """Answer one question; `resume` (`-c`: LAST_SESSION, `-r N`) asks it inside a logged
    conversation, as the REPL would after `/retomar`."""
    question, problem = read_question(words)
    if problem is not None:
        print(messages.ERROR_PREFIX.format(message=problem), file=sys.stderr)
        return 2
    backend = make_backend(settings)  # a bad --backend/--base-url fails before indexing
    # Which embedder ranks by meaning is news once; a one-shot command says it with -v.
    opened = open_retrieval(settings, sys.stderr, announce=settings.verbosity >= VERBOSE)
    answerer = Answerer(opened.index, backend, settings, dense=opened.dense)
    log = SessionLog.open(settings, warn=lambda line: print(line, file=sys.stderr))
    conversation = None if resume is None else _conversation(log, resume, settings, opened.index)
    if settings.json_output:
        collected = JsonAnswer(question, settings)
        return _answer(question, conversation, answerer, collected, log, settings)
    printer = AnswerPrinter(sys.stdout, sys.stderr, show_thinking=settings.show_thinking,
                            english=surely_english(question), verbosity=settings.verbosity,
                            docs=settings.docs_dir)
    return _answer(question, conversation, answerer, printer, log, settings)


def _answer(
    question: str,
    conversation: Conversation | None,
    answerer: Answerer,
    shown: AnswerPrinter | JsonAnswer,
    log: SessionLog | None,
    settings: Settings,
) -> int:
    """Stream the answer to `shown` (the terminal's printer, or `--json`'s collector), log it."""
    recorder = TurnRecorder(question)
    events = answerer.answer(question, conversation)
    try:
        with no_control_echo(sys.stdin):
            for event in events:
                recorder.see(event)
                shown.show(event)
                if isinstance(event, NotCovered) and settings.verbosity >= VERBOSE:
                    print(refusal_line(answerer.index, question, settings.top_k,
                                       settings.min_coverage), file=sys.stderr)
            if isinstance(shown, AnswerPrinter):
                shown.finish()
    except KeyboardInterrupt:
        events.close()  # closes the stream: the server stops generating
        if isinstance(shown, AnswerPrinter):
            shown.interrupted()  # erases a status line, says the answer stopped
        record_answer(log, recorder, shown, settings, interrupted=True)
        return 130
    except BaseException:
        if isinstance(shown, AnswerPrinter):
            shown.abandon()
        raise
    finally:
        answerer.close()
    record_answer(log, recorder, shown, settings, interrupted=False)
    if log is not None:
        log.close()
    if isinstance(shown, JsonAnswer):
        print(json_text(shown.as_json()), flush=True)
    return 1 if shown.failed else 0


def _conversation(
    log: SessionLog | None, resume: int, settings: Settings, index: SearchIndex
) -> Conversation | None:
    """The logged conversation `-c`/`-r N` continue (its next exchange is logged in it),
    said on stderr; None, with the reason, when there is none."""
    found, problem = resumed(log, resume, settings)
    if problem is not None:
        print(problem, file=sys.stderr)
    if found is None or log is None or not (exchanges := log.reopen(found.id)):
        return None
    print(messages.RESUMED.format(time=local_time(found.last_at), count=len(exchanges),
                                  question=one_line(exchanges[-1].question)[:70]),
          file=sys.stderr)
    return conversation_from(exchanges, index)


def read_question(words: Sequence[str]) -> tuple[str, str | None]:
    """The question (the words, or standard input for `-` or no words on a pipe) and, when
    there is none to ask, the pt-BR reason instead."""
    stdin = sys.stdin
    if "-" in words and len(words) > 1:
        return "", messages.ASK_DASH_WITH_WORDS
    if list(words) == ["-"] or (not words and stdin is not None and not stdin.isatty()):
        text = _bounded_read(stdin) if stdin is not None else ""
        if has_words(text):
            return text, None
        # `-` named the input, which was empty; no words at all may be a forgotten question.
        return "", messages.ASK_EMPTY_STDIN if words else messages.ASK_NO_QUESTION
    if not words:
        return "", messages.ASK_NO_QUESTION
    question = check_question(" ".join(words))
    return question, None if has_words(question) else messages.ASK_EMPTY_QUESTION


def _bounded_read(stdin: TextIO) -> str:
    """Standard input as the question, refused past MAX_QUESTION_CHARS (`docai ask - <
    big.txt`): what lies beyond the limit is counted for the message, never kept."""
    text = stdin.read(MAX_QUESTION_CHARS + 1)
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    size = len(text) + sum(len(piece) for piece in iter(lambda: stdin.read(1 << 20), ""))
    raise QuestionTooLong(size)


def has_words(text: str) -> bool:
    """Whether `text` can be a question at all: "?" or "..." alone names nothing to search."""
    return any(character.isalnum() for character in text)
