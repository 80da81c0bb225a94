"""`docai` with no subcommand: a pt-BR conversation about the docs folder.

On a terminal it uses prompt_toolkit (line editing, history saved in the user data folder);
with piped input it answers one question per line, so `docai < perguntas.txt` works too.
Ctrl-C at the prompt clears the line; during an answer it stops the answer (the stream is
closed, so the server stops generating) and the prompt comes back. `sair`, `exit`, `quit`
and Ctrl-D end the session with exit status 0.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from docai import messages
from docai.answer.answerer import Answerer
from docai.cli.render import AnswerPrinter
from docai.cli.repl_commands import Session, find_command, run_command
from docai.cli.startup import open_retrieval
from docai.cli.terminal_text import one_line
from docai.llm.base import make_backend
from docai.settings import Settings, history_file
from docai.text.analysis import surely_english


def run(settings: Settings) -> int:
    stdin = sys.stdin or io.StringIO()  # a closed stdin (`docai <&-`) reads as empty input
    interactive = stdin.isatty()
    backend = make_backend(settings)  # a bad --backend/--base-url fails before indexing
    opened = open_retrieval(settings, sys.stderr)
    report = opened.report
    welcome = messages.REPL_WELCOME.format(
        files=report.files, chunks=report.chunks, docs=one_line(str(settings.docs_dir)),
        model=one_line(settings.model),
    )
    # With piped input, stdout carries only answers; the greeting goes to stderr.
    answerer = Answerer(opened.index, backend, settings, dense=opened.dense)
    print(welcome, file=sys.stdout if interactive else sys.stderr, flush=True)
    session = Session(
        answerer, show_thinking=settings.show_thinking, out=sys.stdout, interactive=interactive
    )
    try:
        lines = _terminal_lines() if interactive else _piped_lines(stdin)
        for line in lines:
            if not handle_line(line, session):
                break
    finally:
        answerer.close()
    if interactive:
        print(messages.REPL_GOODBYE, flush=True)
        return 0
    # A script feeding questions learns that some got no answer from the model, as with ask.
    return 1 if session.model_failed else 0


def handle_line(line: str, session: Session) -> bool:
    """Act on one input line; False means the user asked to leave.

    A line is a command when it starts with a slash, or when it is a command's name as a
    whole (`sair`); anything else is a question."""
    text = line.strip()
    if not text:
        session.out.write(messages.REPL_EMPTY_LINE + "\n")
        session.out.flush()
    elif text.startswith("/") or find_command(text) is not None:
        try:
            run_command(text, session)
        except KeyboardInterrupt:  # e.g. a long /reindexar: the old index stays in use
            if not session.interactive:
                raise
            session.out.write(messages.INTERRUPTED + "\n")
    else:
        ask(text, session)
    return not session.leaving


def ask(question: str, session: Session) -> None:
    """Stream one answer; Ctrl-C stops it and closes the stream to the model.

    At a terminal the prompt comes back after Ctrl-C; with piped input there is no prompt to
    come back to, so the interrupt ends the run (exit 130, like any command).
    """
    printer = AnswerPrinter(session.out, sys.stderr, show_thinking=session.show_thinking,
                            english=surely_english(question))
    session.last_answer = printer
    events = session.answerer.answer(question)
    try:
        for event in events:
            printer.show(event)
        printer.finish()
        session.model_failed |= printer.failed
    except KeyboardInterrupt:
        events.close()
        printer.interrupted()
        if not session.interactive:
            raise
    session.out.write("\n")
    session.out.flush()


def _terminal_lines() -> Iterable[str]:
    """Lines typed at the prompt until Ctrl-D; Ctrl-C at the prompt only clears the line."""
    prompt = PromptSession[str](history=_history(sys.stderr))
    while True:
        try:
            yield prompt.prompt(messages.REPL_PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            return


def _piped_lines(stdin: TextIO) -> Iterable[str]:
    """Non-blank lines of piped input (a blank line in a file is not a question to nudge)."""
    return (line for line in stdin if line.strip())


def _history(err: TextIO) -> History:
    """The history file in the user data folder, or an in-memory one if it cannot be written."""
    path = history_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Questions can name private things: the history is the user's alone, like a shell's.
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)
    except OSError as error:
        err.write(messages.REPL_HISTORY_UNAVAILABLE.format(path=path, reason=error.strerror) + "\n")
        return InMemoryHistory()
    return FileHistory(str(path))
