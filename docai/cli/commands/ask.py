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

from docai import messages
from docai.answer.answerer import Answerer
from docai.answer.recording import TurnRecorder
from docai.cli.output.answer_json import JsonAnswer
from docai.cli.output.control_echo import no_control_echo
from docai.cli.output.render import AnswerPrinter
from docai.cli.session_log import SessionLog, record_answer
from docai.cli.startup import open_retrieval
from docai.cli.terminal_text import json_text
from docai.llm.backends import make_backend
from docai.settings import VERBOSE, Settings
from docai.text.analysis import surely_english


def run(settings: Settings, words: Sequence[str]) -> int:
    question, problem = read_question(words)
    if problem is not None:
        print(messages.ERROR_PREFIX.format(message=problem), file=sys.stderr)
        return 2
    backend = make_backend(settings)  # a bad --backend/--base-url fails before indexing
    # Which embedder ranks by meaning is news once; a one-shot command says it with -v.
    opened = open_retrieval(settings, sys.stderr, announce=settings.verbosity >= VERBOSE)
    if settings.json_output:
        return _answer_as_json(question, Answerer(opened.index, backend, settings,
                                                  dense=opened.dense), settings)
    printer = AnswerPrinter(sys.stdout, sys.stderr, show_thinking=settings.show_thinking,
                            english=surely_english(question), verbosity=settings.verbosity,
                            docs=settings.docs_dir)
    answerer = Answerer(opened.index, backend, settings, dense=opened.dense)
    log = SessionLog.open(settings, warn=lambda line: print(line, file=sys.stderr))
    recorder = TurnRecorder(question)
    events = answerer.answer(question)
    try:
        with no_control_echo(sys.stdin):
            for event in events:
                recorder.see(event)
                printer.show(event)
            printer.finish()
    except KeyboardInterrupt:
        events.close()  # closes the stream: the server stops generating
        printer.interrupted()  # erases a status line, says the answer stopped
        record_answer(log, recorder, printer, settings, interrupted=True)
        return 130
    except BaseException:
        printer.abandon()
        raise
    finally:
        answerer.close()
    record_answer(log, recorder, printer, settings, interrupted=False)
    if log is not None:
        log.close()
    return 1 if printer.failed else 0


def _answer_as_json(question: str, answerer: Answerer, settings: Settings) -> int:
    """`ask --json`: the whole answer as one JSON object on stdout, logged as usual."""
    collected = JsonAnswer(question, settings)
    log = SessionLog.open(settings, warn=lambda line: print(line, file=sys.stderr))
    recorder = TurnRecorder(question)
    events = answerer.answer(question)
    try:
        for event in events:
            recorder.see(event)
            collected.show(event)
    except KeyboardInterrupt:
        events.close()
        record_answer(log, recorder, collected, settings, interrupted=True)
        return 130
    finally:
        answerer.close()
    record_answer(log, recorder, collected, settings, interrupted=False)
    if log is not None:
        log.close()
    print(json_text(collected.as_json()), flush=True)
    return 1 if collected.failed else 0


def read_question(words: Sequence[str]) -> tuple[str, str | None]:
    """The question (the words, or standard input for `-` or no words on a pipe) and, when
    there is none to ask, the pt-BR reason instead."""
    stdin = sys.stdin
    if "-" in words and len(words) > 1:
        return "", messages.ASK_DASH_WITH_WORDS
    if list(words) == ["-"] or (not words and stdin is not None and not stdin.isatty()):
        text = stdin.read() if stdin is not None else ""
        if has_words(text):
            return text, None
        # `-` named the input, which was empty; no words at all may be a forgotten question.
        return "", messages.ASK_EMPTY_STDIN if words else messages.ASK_NO_QUESTION
    if not words:
        return "", messages.ASK_NO_QUESTION
    question = " ".join(words)
    return question, None if has_words(question) else messages.ASK_EMPTY_QUESTION


def has_words(text: str) -> bool:
    """Whether `text` can be a question at all: "?" or "..." alone names nothing to search."""
    return any(character.isalnum() for character in text)
