"""`Session`: the state of one REPL run that the loop and its commands read and change.

Its own module, below both: the command table, the loop and the modules each command lives
in import it, and nothing it imports knows the REPL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

from docai.answer.answerer import Answerer
from docai.answer.conversation import Conversation
from docai.cli.output.render import AnswerPrinter
from docai.cli.repl.background import BackgroundPass
from docai.cli.repl.server_check import ServerWatch
from docai.cli.session_log import SessionLog
from docai.index.freshness import FolderState
from docai.log import SessionSummary


@dataclass(slots=True)
class Session:
    """The mutable state of one REPL run (never module-level)."""

    answerer: Answerer
    show_thinking: bool
    out: TextIO
    interactive: bool
    last_answer: AnswerPrinter | None = None
    model_failed: bool = False
    leaving: bool = False  # the user asked to end the session
    server: ServerWatch | None = None  # what is known of the model server (REPL at a terminal)
    conversation: Conversation = field(default_factory=Conversation)  # the turns so far
    background: BackgroundPass | None = None  # embeds the collection while the prompt waits
    log: SessionLog | None = None  # the log of exchanges (None: --no-log)
    listed_sessions: list[SessionSummary] = field(default_factory=list)  # the last /sessoes
    folder: FolderState | None = None  # the docs folder when its index was last read

    def say(self, text: str) -> None:
        """A command's reply: one or more lines on the REPL's output, shown at once."""
        self.out.write(text + "\n")
        self.out.flush()
