"""`docai` with no subcommand: a pt-BR conversation about the docs folder.

On a terminal it uses prompt_toolkit (line editing, history saved in the user data folder);
with piped input it answers one question per line, so `docai < perguntas.txt` works too.
Ctrl-C at the prompt clears the line; during an answer it stops the answer (the stream is
closed, so the server stops generating) and the prompt comes back. `sair`, `exit`, `quit`
and Ctrl-D end the session with exit status 0.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
import threading
from collections.abc import Iterable
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.keys import Keys

from docai import messages
from docai.answer.answerer import Answerer
from docai.cli.commands.ask import has_words
from docai.cli.repl.asking import ask
from docai.cli.repl.background import BackgroundPass
from docai.cli.repl.command_table import find_command, run_command, set_scope
from docai.cli.repl.completion import ReplCompleter
from docai.cli.repl.editor import editor_bindings
from docai.cli.repl.info import SETTABLE
from docai.cli.repl.multiline import block_bindings, join_blocks, unwrap_block
from docai.cli.repl.server_check import ServerState, ServerWatch, start_note, watched_backend
from docai.cli.repl.session import Session
from docai.cli.repl.sessions import open_session_log, resumable_numbers
from docai.cli.scope import normalised
from docai.cli.startup import dense_coverage, open_retrieval
from docai.cli.terminal_text import one_line, strip_controls
from docai.index.freshness import folder_state
from docai.redaction import redact_url
from docai.settings import QUIET, VERBOSE, Settings, history_file


def run(settings: Settings, *, resume: int | None = None) -> int:
    stdin = sys.stdin or io.StringIO()  # a closed stdin (`docai <&-`) reads as empty input
    interactive = stdin.isatty()
    watch = ServerWatch(settings)
    backend = watched_backend(settings, watch)  # a bad --backend/--base-url fails first
    watch.start()  # asks the server while the index opens
    try:
        # Taken first: what changes while the index opens is read before the first question.
        state = None if settings.store else folder_state(settings)
        opened = open_retrieval(settings, sys.stderr)
    except BaseException:  # an empty folder, Ctrl-C while indexing: the clients close too
        backend.close()
        raise
    report = opened.report
    fields = dict(
        files=report.files, chunks=report.chunks, origin=one_line(_origin(settings)),
        model=one_line(settings.model),
    )
    answerer = Answerer(opened.index, backend, settings, dense=opened.dense)
    quiet = settings.verbosity <= QUIET
    # With piped input, stdout carries only the transcript: the one-line greeting goes to
    # stderr, and the interactive hints nowhere.
    if not quiet:
        greeting = messages.REPL_WELCOME if interactive else messages.REPL_READY
        print(greeting.format(**fields), file=sys.stdout if interactive else sys.stderr,
              flush=True)
    session = Session(
        answerer, show_thinking=settings.show_thinking, out=sys.stdout, interactive=interactive
    )
    session.server = watch
    session.folder = state
    open_session_log(session, settings, resume=resume)
    if interactive and opened.dense is not None and not settings.store:
        # Until complete, words only meanwhile: the prompt's right shows how far the pass
        # is, so the full account is for -v.
        if settings.verbosity >= VERBOSE:
            print(dense_coverage(opened.dense), file=sys.stderr, flush=True)
        session.background = BackgroundPass(opened.dense).start()
    try:
        if interactive:
            lines = _terminal_lines(session, announce=not quiet)
        else:
            # Wait for the start-up check, so a script's stderr is the same at every run.
            if not quiet and watch.wait_checked():
                _print_note(watch.state, settings, sys.stderr)
            lines = _piped_lines(stdin)
        for line in lines:
            if not interactive:  # a transcript: each question before its answer
                session.out.write(messages.REPL_ECHO.format(line=one_line(line.strip())) + "\n")
            if not handle_line(line, session):
                break
    finally:
        try:
            if session.background is not None:
                session.background.close(say=lambda line: print(line, file=sys.stderr))
        finally:
            answerer.close()
            if session.log is not None:
                session.log.close()
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
    if not text.startswith("/") and not has_words(text):  # "", "?", "..."
        session.out.write(messages.REPL_EMPTY_LINE + "\n")
        session.out.flush()
    elif text.startswith("/") or find_command(text) is not None:
        try:
            run_command(text, session)
        except KeyboardInterrupt:  # e.g. a long /reindexar: the old index stays in use
            if not session.interactive:
                raise
            session.out.write(messages.INTERRUPTED + "\n")
    elif text.startswith("@"):
        _ask_within(text, session)
    else:
        ask(text, session)
    return not session.leaving


def _ask_within(text: str, session: Session) -> None:
    """`@guia.md como instalo?`: one question about that file or folder only; the scope in
    force before it comes back after the answer."""
    path, _, question = text[1:].partition(" ")
    if not path or not has_words(question):
        session.say(messages.REPL_AT_USAGE)
        return
    before = session.answerer.settings.only
    if not set_scope(session, normalised(path)):
        return
    try:
        ask(question.strip(), session)
    finally:
        set_scope(session, before)


def _terminal_lines(session: Session, *, announce: bool) -> Iterable[str]:
    """Lines typed at the prompt until Ctrl-D; Ctrl-C at the prompt only clears the line.

    Tab completes commands and model names; Ctrl-L clears the screen (prompt_toolkit's
    own binding). The start-up check's note is shown as soon as it is known: at once, above
    the prompt if the user is typing, or before the next prompt if an answer is streaming.
    While the background pass embeds, its progress shows at the right of the prompt line;
    it runs only while the prompt waits.
    """
    watch = session.server
    completer = ReplCompleter({
        "/modelo": watch.model_names if watch else list,
        "/set": lambda: SETTABLE,
        "/pensamento": lambda: ("on", "off"),
        "/retomar": lambda: resumable_numbers(session),
    })
    prompt = PromptSession[str](
        history=_history(sys.stderr), completer=completer, complete_while_typing=False,
        key_bindings=merge_key_bindings(
            [block_bindings(), editor_bindings(session.say), _no_mouse_reports()]),
        prompt_continuation=messages.REPL_CONTINUATION,
    )
    if session.background is not None:
        prompt.rprompt = lambda: _progress_text(session, prompt)
        session.background.on_change = lambda: _redraw(prompt)
    pending: list[tuple[str, TextIO]] = []
    if watch is not None and announce:
        settings = session.answerer.settings
        watch.when_checked(lambda state: _announce(state, settings, prompt, pending))
    if session.background is not None:  # its warnings come from its thread
        session.background.dense.warn = lambda line: _show_line(
            strip_controls(line), sys.stderr, prompt, pending)
        if announce:
            session.background.on_complete = lambda: _show_line(
                _embedded_all(session), sys.stderr, prompt, pending)
    while True:
        while pending:
            text, stream = pending.pop(0)
            print(text, file=stream, flush=True)
        if session.background is not None:
            session.background.idle()
        try:
            line = prompt.prompt(messages.REPL_PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        finally:
            if session.background is not None:
                session.background.busy()
        yield unwrap_block(line)


def _no_mouse_reports() -> KeyBindings:
    """Mouse reports ignored. The REPL never turns mouse tracking on, so none is real; but
    prompt_toolkit reads typed or pasted coloured text (`ESC [ 31 m`) as one, and its own
    handler fails on it, ending the session or stopping it at "Press ENTER to continue"."""
    bindings = KeyBindings()
    bindings.add(Keys.Vt100MouseEvent)(lambda event: None)
    return bindings


def _embedded_all(session: Session) -> str:
    """The line saying the whole collection now has embeddings (and is ranked by meaning)."""
    background = session.background
    total = len(background.dense.chunks) if background is not None else 0
    return messages.DENSE_COVERAGE_COMPLETE.format(total=total)


def _progress_text(session: Session, prompt: PromptSession[str]) -> str | None:
    """The background pass's progress, shown at the right of the prompt line while the
    user types (not kept on the line once it is sent). Not a bottom toolbar: prompt_toolkit
    draws one only where the terminal reports the cursor's position."""
    if session.background is None or prompt.app.is_done:
        return None
    return session.background.status()


def _redraw(prompt: PromptSession[str]) -> None:
    """Called from the background pass's thread when its progress changed."""
    if prompt.app.is_running:
        prompt.app.invalidate()


def _print_note(state: ServerState, settings: Settings, out: TextIO) -> None:
    if (note := start_note(state, settings)) is not None:
        out.write(one_line(note) + "\n")
        out.flush()


def _announce(
    state: ServerState,
    settings: Settings,
    prompt: PromptSession[str],
    pending: list[tuple[str, TextIO]],
) -> None:
    """Show the start-up check's note; called from the checking thread, or at once."""
    note = start_note(state, settings)
    if note is not None:
        _show_line(one_line(note), sys.stdout, prompt, pending)


def _show_line(
    text: str, stream: TextIO, prompt: PromptSession[str], pending: list[tuple[str, TextIO]]
) -> None:
    """Print a line that may come from another thread: at once on the main thread; above
    the prompt while the user is typing; before the next prompt while an answer streams."""
    app = prompt.app
    if threading.current_thread() is threading.main_thread():
        print(text, file=stream, flush=True)
    elif app.is_running and app.loop is not None and app.context is not None:
        context = app.context.copy()
        app.loop.call_soon_threadsafe(
            context.run, lambda: run_in_terminal(lambda: print(text, file=stream, flush=True))
        )
    else:
        pending.append((text, stream))


def _piped_lines(stdin: TextIO) -> Iterable[str]:
    """Non-blank lines of piped input (a blank line in a file is not a question to nudge),
    a triple-quoted block as one question."""
    return join_blocks(stdin)


def _history(err: TextIO) -> History:
    """The history file in the user data folder, or an in-memory one if it cannot be written."""
    path = history_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Opened for appending, as prompt_toolkit will: a folder (EISDIR) or a pipe with no
        # reader (ENXIO, where waiting would hang the prompt) fails here, not in its loop.
        # Questions can name private things: the history is the user's alone, like a shell's.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, messages.NOT_A_REGULAR_FILE)
            os.fchmod(fd, 0o600)
        finally:
            os.close(fd)
    except OSError as error:
        err.write(messages.REPL_HISTORY_UNAVAILABLE.format(path=path, reason=error.strerror) + "\n")
        return InMemoryHistory()
    return FileHistory(str(path))


def _origin(settings: Settings) -> str:
    """Where the greeting says the passages come from: the docs folder, or the collection."""
    if settings.store:
        return messages.STORE_FROM_COLLECTION.format(
            collection=settings.resolved_collection(), store=redact_url(settings.store))
    return messages.REPL_FROM_DOCS.format(docs=settings.shown_docs())
