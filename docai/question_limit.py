"""How long a question may be: one check for every entry point (`ask`, `search`, the REPL, MCP).

Without a bound a pasted log or a file on stdin costs minutes of analysis and ranking and
gigabytes of memory, and lands whole in the log. A question is at most half the prompt
anyway, so anything past this limit could never reach the model; it is refused in one line
before any work.
"""

from __future__ import annotations

from docai import messages
from docai.errors import DocaiError

MAX_QUESTION_CHARS = 64 * 1024
"""The longest question accepted, in characters (a long stack trace fits; a whole file does not)."""


class QuestionTooLong(DocaiError):
    """A question longer than MAX_QUESTION_CHARS; the message says how long and what to do."""

    def __init__(self, size: int, limit: int = MAX_QUESTION_CHARS) -> None:
        super().__init__(
            messages.QUESTION_TOO_LONG.format(size=_thousands(size), limit=_thousands(limit))
        )
        self.size = size
        self.limit = limit


def question_too_long(question: str, limit: int = MAX_QUESTION_CHARS) -> bool:
    """Whether a question is past the limit (pure: callers that must not raise ask this)."""
    return len(question) > limit


def check_question(question: str, limit: int = MAX_QUESTION_CHARS) -> str:
    """The question unchanged, or QuestionTooLong when it is past the limit."""
    if question_too_long(question, limit):
        raise QuestionTooLong(len(question), limit)
    return question


def _thousands(number: int) -> str:
    """A count as pt-BR writes it (65.536)."""
    return f"{number:,}".replace(",", ".")
