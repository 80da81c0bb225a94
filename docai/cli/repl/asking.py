"""`ask`: one question of a REPL session answered, streamed and kept as a turn.

Shared by the loop (a typed or piped question), `/denovo` and `/editar`, so a command
never reaches back into the loop to ask.
"""

from __future__ import annotations

import sys

from docai import messages
from docai.answer.recording import TurnRecorder
from docai.cli.output.control_echo import no_control_echo
from docai.cli.output.refusal import refusal_line
from docai.cli.output.render import AnswerPrinter
from docai.cli.repl.reopen import refresh_if_changed
from docai.cli.repl.session import Session
from docai.cli.repl.sessions import record_turn
from docai.cli.terminal_text import strip_controls
from docai.question_limit import QuestionTooLong, question_too_long
from docai.retrieval.verdict import NotCovered
from docai.settings import VERBOSE
from docai.store.errors import StoreUnavailable
from docai.text.analysis import surely_english


def ask(question: str, session: Session, *, fresh: bool = False) -> None:
    """Stream one answer, as a turn of the session's conversation (`fresh`: not replayed
    from the answer cache); Ctrl-C stops it and closes the stream to the model.

    At a terminal the prompt comes back after Ctrl-C; with piped input there is no prompt to
    come back to, so the interrupt ends the run (exit 130, like any command).
    """
    if question_too_long(question):  # said, and the session goes on
        session.say(strip_controls(str(QuestionTooLong(len(question)))))
        return
    refresh_if_changed(session)
    printer = AnswerPrinter(session.out, sys.stderr, show_thinking=session.show_thinking,
                            english=surely_english(question),
                            verbosity=session.answerer.settings.verbosity,
                            docs=session.answerer.settings.docs_dir)
    session.last_answer = printer
    recorder = TurnRecorder(question)
    events = session.answerer.answer(question, session.conversation, fresh=fresh)
    interrupted = False
    try:
        with no_control_echo(sys.stdin):
            settings = session.answerer.settings
            for event in events:
                recorder.see(event)
                printer.show(event)
                if isinstance(event, NotCovered) and settings.verbosity >= VERBOSE:
                    print(refusal_line(session.answerer.index, question, settings.top_k,
                                       settings.min_coverage), file=sys.stderr)
            printer.finish()
        session.model_failed |= printer.failed
    except KeyboardInterrupt:
        events.close()
        printer.interrupted()
        recorder.interrupted()
        interrupted = True
        if not session.interactive:
            record_turn(session, recorder, printer, interrupted=True)
            raise
    except StoreUnavailable as error:  # the shared store dropped: the next question retries
        printer.abandon()
        print(messages.ERROR_PREFIX.format(message=strip_controls(str(error))), file=sys.stderr)
        return
    except BaseException:
        printer.abandon()
        raise
    session.conversation = session.conversation.add(recorder.turn())
    record_turn(session, recorder, printer, interrupted=interrupted)
    session.out.write("\n")
    session.out.flush()
