"""`docai ask "PERGUNTA"`: one answer streamed to stdout, its sources after it.

Exit status: 0 when docai answered, including "the docs do not cover this" (a correct,
grounded answer, decided without the model); 1 when the model could not answer (server
down, model missing, stream broken), in which case the best passages are still printed so
the user gets something useful; 2 for bad input (as every command); 130 when Ctrl-C stops
the answer.
"""

from __future__ import annotations

import sys

from docai import messages
from docai.answer.answerer import Answerer
from docai.cli.render import AnswerPrinter
from docai.cli.startup import open_retrieval
from docai.llm.base import make_backend
from docai.settings import Settings
from docai.text.analysis import surely_english


def run(settings: Settings, question: str) -> int:
    if not question.strip():
        print(messages.ERROR_PREFIX.format(message=messages.ASK_EMPTY_QUESTION), file=sys.stderr)
        return 2
    backend = make_backend(settings)  # a bad --backend/--base-url fails before indexing
    opened = open_retrieval(settings, sys.stderr)
    printer = AnswerPrinter(sys.stdout, sys.stderr, show_thinking=settings.show_thinking,
                            english=surely_english(question))
    answerer = Answerer(opened.index, backend, settings, dense=opened.dense)
    events = answerer.answer(question)
    try:
        for event in events:
            printer.show(event)
        printer.finish()
    except KeyboardInterrupt:
        events.close()  # closes the stream: the server stops generating
        printer.interrupted()  # erases a status line, says the answer stopped
        return 130
    finally:
        answerer.close()
    return 1 if printer.failed else 0
