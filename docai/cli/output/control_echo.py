"""The terminal's echo of Ctrl-C ("^C") switched off while an answer streams.

A terminal in its normal mode answers Ctrl-C by printing "^C" where the cursor is. The
Markdown view of a streaming answer redraws its open block in place, counting the lines it
drew; when the answer's line fills the width, the two extra characters wrap onto a line of
their own, the count is off by one, and the block meant to be replaced stays on the screen
above its final copy: the partial answer was shown twice. docai says "(resposta
interrompida)" itself, so the echo is turned off for the length of an answer (as `less`
and `ollama run` do), and restored after, whatever happens.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

try:
    import termios
except ImportError:  # Windows: its console prints no "^C"
    termios = None  # type: ignore[assignment]


@contextmanager
def no_control_echo(stream: TextIO | None) -> Iterator[None]:
    """Within the block, `stream`'s terminal (if it is one) does not echo control keys."""
    descriptor = _terminal_descriptor(stream)
    if descriptor is None or termios is None:
        yield
        return
    try:
        saved = termios.tcgetattr(descriptor)
    except termios.error:
        yield
        return
    quiet = list(saved)
    quiet[3] = saved[3] & ~(termios.ECHO | termios.ECHOCTL)
    termios.tcsetattr(descriptor, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(descriptor, termios.TCSANOW, saved)


def _terminal_descriptor(stream: TextIO | None) -> int | None:
    try:
        if stream is None or not stream.isatty():
            return None
        return stream.fileno()
    except (OSError, ValueError):  # closed, or a stream without a descriptor
        return None
