"""A streamed answer shown as rendered Markdown (headings, lists, code, emphasis) on a terminal.

Markdown cannot be rendered a token at a time (`**bold` is not bold until its `**` comes),
and re-rendering the whole answer on every token breaks once it outgrows the screen (a
terminal cannot redraw what scrolled away). So the answer is cut into blocks at blank lines
outside code fences: a finished block is printed once, for good, and only the block being
written is shown live (rich's `Live`) and redrawn as it grows. A block taller than the screen
is cut at a line (a code block is closed there and opened again), so the live part always
fits.

The text given here has already been cleaned of terminal escapes (`terminal_text`); links are
shown with their address, not as terminal hyperlinks, so a model cannot hide one.
"""

from __future__ import annotations

import re
import time

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

REFRESH_SECONDS = 0.08  # redraw the live block at most this often (a redraw per token flickers)
SPARE_ROWS = 3  # rows kept free under the live block, so it never reaches the screen's bottom
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def split_blocks(text: str) -> tuple[str, str]:
    """(finished blocks, the block still being written): cut at the last blank line that is
    not inside a code fence."""
    fence: str | None = None
    cut = 0
    position = 0
    lines = text.split("\n")
    for number, line in enumerate(lines):
        end = position + len(line) + 1
        match = _FENCE.match(line)
        if match is not None:
            marker = match.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(" `~"):
                fence = None
        elif fence is None and not line.strip() and number < len(lines) - 1:
            cut = end
        position = end
    return text[:cut].strip("\n"), text[cut:]


def open_fence(text: str) -> str | None:
    """The opening line of the code fence `text` leaves open, if any."""
    opening: str | None = None
    marker = ""
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if match is None:
            continue
        if opening is None:
            opening, marker = line, match.group(1)
        elif match.group(1).startswith(marker) and not line.strip(" `~"):
            opening = None
    return opening


class MarkdownStream:
    """Feed cleaned answer text as it arrives; `finish` prints what is left."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._pending = ""
        self._printed = False
        self._live: Live | None = None
        self._last_redraw = 0.0

    def feed(self, text: str) -> None:
        self._pending += text
        finished, self._pending = split_blocks(self._pending)
        if finished:
            self._print(finished)
        self._cut_tall_block()
        self._redraw()

    def finish(self) -> None:
        """Print the last block for good and leave the cursor at the start of a line."""
        if self._live is not None:
            self._live.update(Text(""), refresh=True)
            self._live.stop()
            self._live = None
        if self._pending.strip():
            self._print(self._pending.strip("\n"))
        self._pending = ""

    def _print(self, blocks: str) -> None:
        if self._printed:
            self._console.print()
        self._console.print(_markdown(blocks))
        self._printed = True
        if self._live is not None:  # the live part showed these blocks: show what is left
            self._redraw(now=True)

    def _cut_tall_block(self) -> None:
        """Print the top of a live block that would not fit on the screen."""
        room = max(self._console.height - SPARE_ROWS, 4)
        lines = self._pending.split("\n")
        if len(lines) <= room:
            return
        rendered = self._console.render_lines(_markdown(self._pending), new_lines=False)
        if len(rendered) <= room:
            return
        head, rest = "\n".join(lines[:-1]), lines[-1]  # the line being written stays live
        if (fence := open_fence(head)) is not None:
            head, rest = f"{head}\n{fence.strip()[0] * 3}", f"{fence}\n{rest}"
        self._print(head)
        self._pending = rest

    def _redraw(self, *, now: bool = False) -> None:
        if self._live is None:
            if not self._pending.strip():
                return
            self._live = Live(
                console=self._console, auto_refresh=False, transient=True,
                redirect_stdout=False, redirect_stderr=False, vertical_overflow="visible",
            )
            self._live.start()
        moment = time.monotonic()
        if now or moment - self._last_redraw >= REFRESH_SECONDS:
            self._last_redraw = moment
            self._live.update(self._live_block(), refresh=True)

    def _live_block(self) -> RenderableType:
        if not self._pending.strip():
            return Text("")
        block = _markdown(self._pending)
        # The blank line `_print` will put before this block once it is finished.
        return Group(Text(""), block) if self._printed else block


def _markdown(text: str) -> Markdown:
    return Markdown(text, hyperlinks=False)
