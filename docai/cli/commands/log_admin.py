"""`docai log --rename N NOME | --delete N... | --clear`: the log's conversations named or
deleted, by the numbers `docai log`, `/sessoes` and `--json` all show.

Deleting asks first, on a terminal; a script says `--yes`. The log overwrites what it
deletes (SQLite's secure_delete), so a cleared question is gone from the file too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from docai import messages
from docai.cli.terminal_text import one_line
from docai.errors import SettingsError
from docai.log import ExchangeLog, default_log_path


def run(*, rename: Sequence[str] | None, delete: Sequence[int] | None, clear: bool,
        yes: bool) -> int:
    path = default_log_path()
    if not path.exists():
        print(messages.LOG_EMPTY)
        return 0
    log = ExchangeLog(path)
    try:
        if rename:
            return _rename(log, rename[0], rename[1])
        return _delete(log, None if clear else list(delete or ()), yes=yes)
    finally:
        log.close()


def _rename(log: ExchangeLog, number: str, name: str) -> int:
    session = _number(number)
    shown = one_line(" ".join(name.split()))[:200]
    if not log.rename_session(session, shown or None):
        raise SettingsError(messages.LOG_NO_SUCH_CONVERSATION.format(number=session))
    print(messages.LOG_RENAMED.format(number=session, name=shown))
    return 0


def _delete(log: ExchangeLog, sessions: list[int] | None, *, yes: bool) -> int:
    if sessions is None:
        total = sum(s.exchanges for s in log.all_sessions())
        what = messages.LOG_WHAT_ALL.format(exchanges=total)
    else:
        found = [log.session_summary(number) for number in sessions]
        missing = [n for n, summary in zip(sessions, found, strict=True) if summary is None]
        if missing:
            raise SettingsError(messages.LOG_NO_SUCH_CONVERSATION.format(number=missing[0]))
        what = messages.LOG_WHAT_CONVERSATIONS.format(
            count=len(sessions), exchanges=sum(s.exchanges for s in found if s is not None))
    if not yes and not _confirmed(messages.LOG_CONFIRM_DELETE.format(what=what)):
        print(messages.LOG_KEPT)
        return 0 if sys.stdin is not None and sys.stdin.isatty() else 2
    print(messages.LOG_DELETED.format(count=log.delete_sessions(sessions)))
    return 0


def _confirmed(question: str) -> bool:
    if sys.stdin is None or not sys.stdin.isatty():
        print(messages.ERROR_PREFIX.format(message=messages.LOG_NEEDS_YES), file=sys.stderr)
        return False
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().casefold() in ("s", "sim", "y", "yes")


def _number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        message = messages.LOG_NO_SUCH_CONVERSATION.format(number=one_line(text))
        raise SettingsError(message) from None
