"""`/copiar`: the last answer and its sources to the clipboard, through the terminal.

OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`) asks the terminal itself to set the clipboard, so it
works over SSH and needs no clipboard program on the machine docai runs on. Inside tmux the
plain sequence is sent too: tmux takes it itself with `set-clipboard on` (and passes it on
to the outer terminal), while a sequence wrapped in tmux's DCS passthrough is dropped
unless `allow-passthrough` is on, which tmux 3.3 leaves off. So inside tmux the message
names the one setting that makes it work.
"""

from __future__ import annotations

import base64
import os
import subprocess
from typing import TYPE_CHECKING, TextIO

from docai import messages
from docai.answer.conversation import Turn
from docai.cli.output.passages import source_label
from docai.cli.terminal_text import strip_controls

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session

# Terminals drop longer sequences (xterm's default limit is about this size once encoded).
MAX_ENCODED = 100_000


def osc52(text: str) -> str:
    """The escape sequence that puts `text` on the clipboard."""
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"\x1b]52;c;{payload}\x07"


def clipboard_text(turn: Turn) -> str:
    """The answer as the user saw it, then its numbered sources."""
    text = strip_controls(turn.answer).strip()
    if turn.sources:
        cited = "\n".join(f"[{n}] {source_label(hit)}"
                          for n, hit in enumerate(turn.sources, start=1))
        text += f"\n\n{messages.COPY_SOURCES}\n{cited}"
    return text


def copy_last_answer(session: Session, _argument: str) -> None:
    last = session.conversation.last
    if last is None:
        session.say(messages.COPY_NO_QUESTION)
        return
    if not last.answer:
        session.say(messages.COPY_NOTHING)
        return
    text = clipboard_text(last)
    sequence = osc52(text)
    if len(sequence) > MAX_ENCODED:
        session.say(messages.COPY_TOO_LONG.format(size=len(sequence), limit=MAX_ENCODED))
        return
    terminal = _terminal(session)
    if terminal is None:
        session.say(messages.COPY_NO_TERMINAL)
        return
    terminal.write(sequence)
    terminal.flush()
    if terminal is not session.out:
        terminal.close()
    refusing = "TMUX" in os.environ and not _tmux_takes_it()
    copied = messages.COPIED_IN_TMUX if refusing else messages.COPIED
    session.say(copied.format(chars=len(text), sources=len(last.sources)))


def _tmux_takes_it() -> bool:
    """Whether the tmux around docai passes OSC 52 on (`set-clipboard` on or external):
    then its advice would only repeat what is already set. Unknown counts as no."""
    try:
        done = subprocess.run(["tmux", "show-options", "-gv", "set-clipboard"],
                              capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() in ("on", "external")


def _terminal(session: Session) -> TextIO | None:
    """Where the sequence goes: the REPL's output when it is a terminal, else the
    controlling terminal of a user typing with output redirected; a script, nowhere."""
    if session.out.isatty():
        return session.out
    if not session.interactive:
        return None
    try:
        return open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115 (closed by the caller)
    except OSError:
        return None
