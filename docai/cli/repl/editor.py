"""`/editar`: write the question in the user's editor ($VISUAL, then $EDITOR, then the
system's), starting from the last question, and ask what was saved.

The file lives in a private temporary folder and is deleted afterwards: a question can name
private things. An editor that exits with an error or without saving, or a file left empty,
asks nothing.
Ctrl-X Ctrl-E (`editor_bindings`) runs the same editor the same way: prompt_toolkit's own
binding would pass over a VISUAL that does not start to another editor, and end the REPL on
one it cannot split.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from docai import messages
from docai.cli.repl.asking import ask
from docai.cli.terminal_text import one_line, strip_controls

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session

# Tried in order when neither VISUAL nor EDITOR is set (the same as prompt_toolkit's Ctrl-X
# Ctrl-E, so both open the same editor).
FALLBACK_EDITORS = ("editor", "nano", "pico", "vi", "emacs")
UNSAVED_AGE_S = 3600.0


class EditorSettingError(ValueError):
    """VISUAL or EDITOR holds something that is not a command line (an unclosed quote)."""


def editor_command() -> list[str] | None:
    """The editor to run, as argv (VISUAL and EDITOR may hold options: "code --wait")."""
    for variable in ("VISUAL", "EDITOR"):
        if value := os.environ.get(variable, "").strip():
            try:
                return shlex.split(value)
            except ValueError as error:
                raise EditorSettingError(messages.EDIT_BAD_VARIABLE.format(
                    variable=variable, value=one_line(value), reason=error)) from None
    for name in FALLBACK_EDITORS:
        if found := shutil.which(name):
            return [found]
    return None


def edit_text(text: str) -> tuple[str | None, str | None]:
    """(the text saved in the editor, None) or (None, why nothing was edited)."""
    try:
        command = editor_command()
    except EditorSettingError as error:
        return None, str(error)
    if command is None:
        return None, messages.EDIT_NO_EDITOR
    with tempfile.TemporaryDirectory(prefix="docai-") as folder:  # 0700
        path = Path(folder) / "pergunta.md"
        path.write_text(text + "\n" if text else "", encoding="utf-8")
        # Dated an hour back: any save dates it now, so an editor left without saving is
        # told apart from one that saved the text unchanged.
        written = path.stat().st_mtime - UNSAVED_AGE_S
        os.utime(path, (written, written))
        try:
            status = subprocess.call([*command, str(path)])
        except OSError as error:
            return None, messages.EDIT_FAILED.format(editor=shlex.join(command),
                                                     reason=error.strerror or error)
        if status != 0 or path.stat().st_mtime == written:  # quit, or nothing saved
            return None, messages.EDIT_CANCELLED
        return path.read_text(encoding="utf-8", errors="replace"), None


def edit_question(session: Session, argument: str) -> None:
    if not session.interactive:  # an editor reading a script's input would wait forever
        session.say(messages.EDIT_NEEDS_TERMINAL)
        return
    last = session.conversation.last
    start = argument or (last.question if last is not None else "")
    question = _edited(start, session.say)
    if not question:
        return
    session.say(as_typed(question))  # as the prompt shows a typed one (Ctrl-X Ctrl-E does)
    ask(question, session)


def as_typed(question: str) -> str:
    """The question as the prompt would have shown it typed: after `docai> `, each further
    line under the first."""
    lines = strip_controls(question).splitlines() or [""]
    indent = " " * len(messages.REPL_PROMPT)
    return "\n".join([messages.REPL_PROMPT + lines[0], *(indent + line for line in lines[1:])])


def editor_bindings(say: Callable[[str], None]) -> KeyBindings:
    """Ctrl-X Ctrl-E: the question being typed, edited as `/editar` edits, then asked; an
    editor that does not open, or a file left empty, leaves the line as it was, with `say`
    telling why."""
    bindings = KeyBindings()

    @bindings.add("c-x", "c-e")
    def _edit(event: KeyPressEvent) -> None:
        buffer = event.current_buffer

        async def edit() -> None:
            edited = await run_in_terminal(lambda: _edited(buffer.text, say))
            if edited:
                buffer.text = edited
                buffer.validate_and_handle()

        event.app.create_background_task(edit())

    return bindings


def _edited(text: str, say: Callable[[str], None]) -> str:
    """The question saved in the editor, or "" (and why, said)."""
    edited, problem = edit_text(text)
    question = (edited or "").strip()
    if problem is None and not question:
        problem = messages.EDIT_CANCELLED
    if problem is not None:
        say(problem)
    return question
