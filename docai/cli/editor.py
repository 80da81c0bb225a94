"""`/editar`: write the question in the user's editor ($VISUAL, then $EDITOR, then the
system's), starting from the last question, and ask what was saved.

The file lives in a private temporary folder and is deleted afterwards: a question can name
private things. An editor that exits with an error, or a file left empty, asks nothing.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from docai import messages

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl_commands import Session

# Tried in order when neither VISUAL nor EDITOR is set (the same as prompt_toolkit's Ctrl-X
# Ctrl-E, so both open the same editor).
FALLBACK_EDITORS = ("editor", "nano", "pico", "vi", "emacs")


def editor_command() -> list[str] | None:
    """The editor to run, as argv (VISUAL and EDITOR may hold options: "code --wait")."""
    for variable in ("VISUAL", "EDITOR"):
        if value := os.environ.get(variable, "").strip():
            return shlex.split(value)
    for name in FALLBACK_EDITORS:
        if found := shutil.which(name):
            return [found]
    return None


def edit_text(text: str) -> tuple[str | None, str | None]:
    """(the text saved in the editor, None) or (None, why nothing was edited)."""
    command = editor_command()
    if command is None:
        return None, messages.EDIT_NO_EDITOR
    with tempfile.TemporaryDirectory(prefix="docai-") as folder:  # 0700
        path = Path(folder) / "pergunta.md"
        path.write_text(text + "\n" if text else "", encoding="utf-8")
        try:
            status = subprocess.call([*command, str(path)])
        except OSError as error:
            return None, messages.EDIT_FAILED.format(editor=shlex.join(command),
                                                     reason=error.strerror or error)
        if status != 0:
            return None, messages.EDIT_CANCELLED
        return path.read_text(encoding="utf-8", errors="replace"), None


def edit_question(session: Session, argument: str) -> None:
    if not session.interactive:  # an editor reading a script's input would wait forever
        session.say(messages.EDIT_NEEDS_TERMINAL)
        return
    last = session.conversation.last
    start = argument or (last.question if last is not None else "")
    edited, problem = edit_text(start)
    if problem is not None:
        session.say(problem)
        return
    question = (edited or "").strip()
    if not question:
        session.say(messages.EDIT_CANCELLED)
        return
    from docai.cli.repl import ask  # the loop imports this table; asking is the loop's job

    ask(question, session)
