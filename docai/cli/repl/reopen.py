"""The index opened again after the docs folder changed: the REPL's by `/reindexar`, or
before a question when the folder changed since the last one (`refresh_if_changed`); and
`docai mcp`'s before a tool call (`FollowedIndex`).

Its own module, below the command table and `asking.py`, which both use it.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from docai import messages
from docai.cli.repl.session import Session
from docai.cli.startup import Opened, open_retrieval
from docai.errors import DocaiError
from docai.index.freshness import FolderState, folder_state
from docai.settings import Settings


def reopen(session: Session) -> Opened | str:
    """The index opened again (only what changed is read), now the answerer's; or, when
    it cannot be, the line saying why (the old index stays in use)."""
    answerer = session.answerer
    # A session started with --rebuild refreshes from now on: rebuilding the whole index
    # again at each change would only cost time.
    settings = replace(answerer.settings, rebuild=False)
    try:
        state = folder_state(settings)
        opened = open_retrieval(settings, sys.stderr, announce=False, notes=False)
    except DocaiError as error:  # e.g. the docs folder was moved away
        return str(error)
    if session.background is not None:  # it embeds the old chunks with the old embedder
        session.background = session.background.replaced_by(opened.dense)
    answerer.replace_index(opened.index, opened.dense)
    session.last_answer = None
    session.folder = state
    return opened


def refresh_if_changed(session: Session) -> None:
    """Before a question: when files were added, changed or removed since the index was
    read, and none is still being written, read just those and say so in one line."""
    if session.folder is None or session.answerer.settings.store:
        return
    try:
        now = folder_state(session.answerer.settings)
    except DocaiError:
        return  # the folder is gone: the question is answered from the index in memory
    if now.files == session.folder.files or not now.settled_since(session.folder):
        return
    before = session.folder
    opened = reopen(session)
    if isinstance(opened, str):
        session.say(messages.ERROR_PREFIX.format(message=opened))
        return
    session.say(changed_line(now, before, opened))


def changed_line(now: FolderState, before: FolderState, opened: Opened) -> str:
    """The one line saying what changed, and how many of the new or changed files the
    index left out (a file skipped as too slow or without text is not "included")."""
    new, changed, removed = now.changes(before)
    touched = now.touched(before)
    skipped = sum(1 for skip in opened.report.skipped if skip.source in touched)
    counts = {"count": new + changed + removed, "new": new, "changed": changed,
              "removed": removed}
    if skipped:
        return messages.REPL_FOLDER_CHANGED_SKIPPED.format(skipped=skipped, **counts)
    return messages.REPL_FOLDER_CHANGED.format(**counts)


class FollowedIndex:
    """An opened index kept up with its folder, for `docai mcp`, which runs for hours
    beside an editor: each call to `current()` reads what changed since the last one."""

    def __init__(self, opened: Opened, settings: Settings, state: FolderState | None) -> None:
        self._opened = opened
        self._settings = replace(settings, rebuild=False)
        self._state = state

    def current(self) -> Opened:
        if self._state is None:  # a shared store: the indexer updates it
            return self._opened
        try:
            now = folder_state(self._settings)
        except DocaiError:
            return self._opened
        if now.files == self._state.files or not now.settled_since(self._state):
            return self._opened
        try:
            self._opened = open_retrieval(self._settings, sys.stderr, progress=False,
                                          announce=False, notes=False)
        except DocaiError as error:
            print(messages.ERROR_PREFIX.format(message=error), file=sys.stderr, flush=True)
            return self._opened
        print(changed_line(now, self._state, self._opened), file=sys.stderr, flush=True)
        self._state = now
        return self._opened
