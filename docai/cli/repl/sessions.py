"""Sessions you can come back to: the REPL's side of the log.

`docai -c` resumes the last conversation of the docs folder, `/sessoes` lists this folder's
conversations and `/retomar N` reopens one: the next question is then asked in it (the model
gets its earlier exchanges, as if the REPL had never closed) and is logged in it.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from docai import messages
from docai.answer.recording import TurnRecorder
from docai.cli.output.render import AnswerPrinter
from docai.cli.session_log import LAST_SESSION, SessionLog, conversation_from, record_answer
from docai.cli.terminal_text import one_line
from docai.log import SessionSummary
from docai.settings import Settings

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session

SESSION_ACTIONS = ("nomear", "name", "apagar", "delete")
SESSIONS_LISTED = 10  # what /sessoes shows: the last ten are the ones worth resuming
QUESTION_WIDTH = 70


def open_session_log(session: Session, settings: Settings, *, resume: int | None) -> None:
    """Give `session` its log and, with `resume` (`docai -c`: the last; `-r N`), that
    conversation."""
    session.log = SessionLog.open(settings, warn=_warn)
    if resume is None:
        return
    # Piped, stdout is the transcript: what resuming found goes to stderr.
    out = session.out if session.interactive else sys.stderr
    found, problem = resumed(session.log, resume, settings)
    if problem is not None:
        out.write(problem + "\n")
    if found is not None:
        _reopen(session, found, out)


def resumed(
    log: SessionLog | None, resume: int, settings: Settings
) -> tuple[SessionSummary | None, str | None]:
    """The conversation `-c` or `-r N` continues, or the line saying why there is none (a
    new one starts; both None when the log failed, which said so already)."""
    if log is None:
        return None, messages.CONTINUE_LOG_OFF
    if not log.available:
        return None, None
    found = log.to_resume(resume)
    if found is not None or not log.available:
        return found, None
    docs = one_line(settings.shown_docs())
    if resume == LAST_SESSION:
        return None, messages.CONTINUE_NOTHING.format(docs=docs)
    return None, messages.RESUME_NOT_FOUND.format(number=resume, docs=docs)


def record_turn(
    session: Session, recorder: TurnRecorder, printer: AnswerPrinter, *, interrupted: bool
) -> None:
    """Log the turn just answered (or interrupted) in the session's conversation."""
    record_answer(session.log, recorder, printer, session.answerer.settings,
                  interrupted=interrupted)


def list_sessions(session: Session, argument: str) -> None:
    """`/sessoes`: this folder's conversations by the number the log gives each (the same
    in `/retomar`, `docai log` and `--json`); `/sessoes nomear N NOME`, `/sessoes apagar N`."""
    if session.log is None or not session.log.available:
        session.say(messages.SESSIONS_LOG_OFF if session.log is None
                    else messages.SESSIONS_LOG_FAILED)
        return
    action, _, rest = argument.strip().partition(" ")
    if action:
        _act(session, session.log, action.casefold(), rest.strip())
        return
    listed = session.log.sessions(SESSIONS_LISTED)
    if listed is None:
        return
    session.listed_sessions = listed
    if not listed:
        session.say(messages.SESSIONS_NONE)
        return
    lines = [messages.SESSIONS_HEADER]
    for summary in listed:
        current = messages.SESSIONS_CURRENT if summary.id == session.log.session else ""
        lines.append(messages.SESSIONS_ROW.format(
            number=summary.id, time=local_time(summary.last_at), count=summary.exchanges,
            question=title(summary)) + current)
    lines.append(messages.SESSIONS_FOOTER)
    session.say("\n".join(lines))


def resumable_numbers(session: Session) -> list[str]:
    """What Tab offers after `/retomar`: the numbers `/sessoes` listed, or, before it ran,
    the same list read from the log (a local file: quick enough while the user types)."""
    if not session.listed_sessions and session.log is not None and session.log.available:
        session.listed_sessions = session.log.sessions(SESSIONS_LISTED) or []
    return [str(listed.id) for listed in session.listed_sessions]


def resume_session(session: Session, argument: str) -> None:
    if session.log is None or not session.log.available:
        session.say(messages.SESSIONS_LOG_OFF if session.log is None
                    else messages.SESSIONS_LOG_FAILED)
        return
    if not argument:
        session.say(messages.RESUME_USAGE)
        return
    summary = _numbered(session.log, argument)
    if summary is None:
        session.say(messages.RESUME_BAD_NUMBER.format(value=argument))
        return
    _reopen(session, summary)
    session.out.flush()


def title(summary: SessionSummary) -> str:
    """How a conversation is named in a list: its name, else its first question."""
    if summary.name:
        return messages.SESSIONS_NAMED.format(name=_short(summary.name))
    return _short(summary.first_question)


def _numbered(log: SessionLog, argument: str) -> SessionSummary | None:
    """The folder's conversation numbered `argument` (the log's number), if any."""
    try:
        number = int(argument.strip().lstrip("#"))
    except ValueError:
        return None
    return log.summary(number)


def _act(session: Session, log: SessionLog, action: str, rest: str) -> None:
    """`nomear N NOME`, `apagar N` (then `apagar N sim`): a conversation named or deleted."""
    number, _, words = rest.partition(" ")
    summary = _numbered(log, number) if number else None
    if action not in SESSION_ACTIONS:
        session.say(messages.SESSIONS_USAGE)
    elif summary is None:
        session.say(messages.SESSIONS_BAD_NUMBER.format(value=number or ""))
    elif action in ("nomear", "name"):
        name = one_line(" ".join(words.split()))[:200] or None
        if log.rename(summary.id, name):
            session.say(messages.SESSIONS_RENAMED.format(number=summary.id, name=name or "—"))
    elif words.strip().casefold() not in ("sim", "yes"):
        session.say(messages.SESSIONS_CONFIRM_DELETE.format(
            number=summary.id, count=summary.exchanges, question=title(summary)))
    elif log.delete(summary.id):
        session.say(messages.SESSIONS_DELETED.format(number=summary.id, count=summary.exchanges))


def local_time(stamp: str) -> str:
    """A stored UTC time as the user's clock reads it ("2026-12-02 13:40")."""
    try:
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return one_line(stamp)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _reopen(session: Session, summary: SessionSummary, out: TextIO | None = None) -> None:
    assert session.log is not None
    exchanges = session.log.reopen(summary.id)
    if not exchanges:
        return
    session.conversation = conversation_from(exchanges, session.answerer.index)
    session.last_answer = None
    (out or session.out).write(messages.RESUMED.format(
        time=local_time(summary.last_at), count=len(exchanges),
        question=_short(exchanges[-1].question)) + "\n")


def _short(text: str) -> str:
    line = one_line(" ".join(text.split()))
    return line if len(line) <= QUESTION_WIDTH else line[: QUESTION_WIDTH - 1] + "…"


def _warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
