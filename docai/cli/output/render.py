"""Show answer events on a terminal (or a pipe): streamed text, dimmed thinking, sources after.

Shared by the REPL and `docai ask` so both look the same. The answer is shown while it is
generated: on a terminal with colours it is rendered as Markdown as it streams
(`markdown_stream`); piped, or with NO_COLOR set (https://no-color.org), every delta is
written as plain text and flushed as it arrives. Piped, shown reasoning goes to stderr,
labelled: stdout carries the answer alone. Status lines ("pensando…") are shown on
any terminal, dimmed only with colours. What the model and the docs wrote passes through
`docai.cli.terminal_text` first: the only escape codes that reach the terminal are docai's
own.

When the model fails before answering, the one error line comes first, saying the cause
(with `/k 5` the passages fill a screen, and a cause printed after them scrolls out of
sight), then the passages it would have read stand in for the answer, indented and marked
as quotes (a doc's own `docai>` example must not look like the prompt).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TextIO

from rich.console import Console

from docai import messages
from docai.answer.answerer import (
    AnswerEvent,
    AnswerWarning,
    CacheReplay,
    ModelFailed,
    NotCovered,
    Retrieved,
)
from docai.cli.output.markdown_stream import MarkdownStream
from docai.cli.output.passages import coverage_label, quoted, source_label
from docai.cli.terminal_text import StreamCleaner, strip_controls
from docai.llm.events import Done, TextDelta, ThinkingDelta
from docai.loading import display_name
from docai.records import Hit
from docai.retrieval.verdict import Fallback
from docai.settings import QUIET, VERBOSE

DIM = "\x1b[2m"
RESET = "\x1b[0m"
ERASE_LINE = "\r\x1b[K"
# Tokens per second no machine reaches: a rate above it comes from a server's junk figures.
MAX_PLAUSIBLE_RATE = 1e6


def wants_color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


class AnswerPrinter:
    """Renders the events of one answer and remembers what `/fontes` and exit codes need."""

    def __init__(
        self, out: TextIO, err: TextIO, *, show_thinking: bool, english: bool = False,
        verbosity: int = 0, docs: Path | None = None,
    ) -> None:
        self._out = out
        self._err = err
        self._show_thinking = show_thinking
        self._english = english
        self._verbosity = verbosity
        self._terminal = out.isatty()
        self._color = wants_color(out)
        # Sources are hyperlinks to their files on a colour terminal (OSC 8).
        self._link_root = docs if self._color else None
        self._markdown = (
            MarkdownStream(Console(file=out, force_terminal=True, highlight=False, emoji=False,
                                   markup=False))
            if self._color else None
        )
        self._started = time.monotonic()
        self._first_token: float | None = None
        self._thinking_shown = False
        self._piped_thinking_open = False  # reasoning written to stderr (stdout is a pipe)
        self._piped_thinking_ends_line = True
        self._status_line = ""  # the status line shown, if any
        self._text_started = False
        self._at_line_start = True
        self._thinking_text = StreamCleaner()
        self._answer_text = StreamCleaner()
        self.sources: tuple[Hit, ...] = ()
        self.fallback_source: str | None = None
        self.failed = False
        self._timings: Done | None = None
        self._replayed = False

    def show(self, event: AnswerEvent) -> None:
        if isinstance(event, Retrieved):
            self.sources = event.hits
            if self._verbosity >= VERBOSE:
                self._retrieval_details(event.hits)
            self._status(messages.ANSWER_WAITING)
        elif isinstance(event, Fallback):
            self.fallback_source = event.source
            source = display_name(event.source)
            if self._verbosity > QUIET:
                self._line(self._dim(messages.ANSWER_FALLBACK.format(source=source)))
            self._status(messages.ANSWER_WAITING)
        elif isinstance(event, NotCovered):
            # docai's own answer: in the question's language, like the model's answers.
            self._line(messages.ANSWER_NOT_COVERED_EN if self._english
                       else messages.ANSWER_NOT_COVERED)
        elif isinstance(event, CacheReplay):
            self._replayed = True  # at once: nothing to wait for, no status to show
            if self._verbosity > QUIET:
                self._line(self._dim(messages.ANSWER_FROM_CACHE))
        elif isinstance(event, AnswerWarning):
            self._clear_status()
            self._end_line()
            self._say(messages.ANSWER_WARNING.format(message=strip_controls(event.message)))
        elif isinstance(event, ThinkingDelta):
            self._thinking(self._thinking_text.feed(event.text))
        elif isinstance(event, TextDelta):
            self._end_thinking()
            self._text(self._answer_text.feed(event.text))
        elif isinstance(event, ModelFailed):
            self._failed(event)
        elif isinstance(event, Done) and self._verbosity >= VERBOSE:
            self._timings = event

    def finish(self) -> None:
        """End the answer's line and list its sources."""
        if not self.failed:
            self._end_thinking()
            self._text(self._answer_text.finish())
        self._end_markdown()
        self._end_piped_thinking()
        self._clear_status()
        self._end_line()
        if self._verbosity >= VERBOSE and self._timings is not None:
            self._say(self._timing_line(self._timings))
        if self.failed or not self._text_started or self._verbosity <= QUIET:
            return
        if self.sources:
            self._write("\n" + messages.ANSWER_SOURCES_HEADER + "\n")
            for number, hit in enumerate(self.sources, start=1):
                label = source_label(hit, docs=self._link_root)
                self._write(messages.ANSWER_SOURCE_LINE.format(number=number, label=label) + "\n")
        elif self.fallback_source:
            source = display_name(self.fallback_source)
            self._write("\n" + messages.ANSWER_FALLBACK_SOURCE.format(source=source))
            self._write("\n")

    def interrupted(self) -> None:
        self.abandon()
        self._line(self._dim(messages.ANSWER_INTERRUPTED))

    def abandon(self) -> None:
        """Leave the terminal as it was (a live Markdown block shows the cursor again, a
        status line is erased) when the answer ends in an error nobody expected."""
        self._end_markdown()
        self._end_piped_thinking()
        self._clear_status()
        self._end_line()

    def _end_thinking(self) -> None:
        """Release what the reasoning's cleaner held back, once the reasoning is over."""
        if rest := self._thinking_text.finish():
            self._thinking(rest)

    def _thinking(self, text: str) -> None:
        if self._text_started:
            return
        if self._show_thinking:
            if not text:  # all of it held back by the cleaner, for now
                return
            if not self._terminal:
                self._piped_thinking(text)
                return
            self._clear_status()
            if not self._thinking_shown:
                self._thinking_shown = True
                self._line(self._dim(messages.ANSWER_THINKING_LABEL))
            self._write(self._dim(text))
        elif self._status_line != messages.ANSWER_THINKING:
            # A hidden reasoning phase can last a while; say so instead of looking frozen.
            self._status(messages.ANSWER_THINKING)

    def _piped_thinking(self, text: str) -> None:
        """Reasoning when stdout is a pipe: on stderr, labelled, so that stdout carries the
        answer alone (`docai ask --show-thinking | cat` reads only the answer)."""
        if not self._piped_thinking_open:
            self._piped_thinking_open = True
            self._out.flush()
            self._err.write(messages.ANSWER_THINKING_LABEL + "\n")
        self._err.write(text)
        self._err.flush()
        self._piped_thinking_ends_line = text.endswith("\n")

    def _end_piped_thinking(self) -> None:
        if self._piped_thinking_open and not self._piped_thinking_ends_line:
            self._err.write("\n")
            self._err.flush()
        self._piped_thinking_ends_line = True

    def _text(self, text: str) -> None:
        if not self._text_started:
            # Reasoning models start their answer with blank lines; they are noise here.
            text = text.lstrip()
            if not text:
                return
            self._clear_status()
            self._end_piped_thinking()
            if self._thinking_shown:
                self._end_line()
                self._write("\n")
            self._text_started = True
            self._first_token = time.monotonic()
        if self._markdown is not None:
            self._markdown.feed(text)
            self._at_line_start = True  # the stream ends its own lines
        else:
            self._write(text)

    def _end_markdown(self) -> None:
        if self._markdown is not None:
            self._markdown.finish()

    def _failed(self, event: ModelFailed) -> None:
        self.failed = True
        self._end_markdown()
        self._end_piped_thinking()
        self._clear_status()
        self._end_line()
        error = strip_controls(str(event.error))
        if not event.passages:
            self._say(messages.ANSWER_MODEL_FAILED_MIDWAY.format(error=error))
            return
        self.sources = event.passages
        self._say(messages.ANSWER_MODEL_FAILED.format(error=error))
        self._write(messages.ANSWER_EXTRACTIVE_HEADER + "\n")
        for number, hit in enumerate(event.passages, start=1):
            label = messages.ANSWER_SOURCE_LINE.format(number=number, label=source_label(hit))
            # The label already names the heading path the passage text starts with.
            body = hit.chunk.text.strip().removeprefix(hit.chunk.heading).strip()
            self._write(f"\n{label}\n{quoted(strip_controls(body))}\n")

    def _retrieval_details(self, hits: tuple[Hit, ...]) -> None:
        self._say(messages.ANSWER_VERBOSE_RETRIEVED.format(
            count=len(hits), seconds=time.monotonic() - self._started))
        for number, hit in enumerate(hits, start=1):
            self._say(messages.ANSWER_VERBOSE_HIT.format(
                number=number, coverage=coverage_label(hit), score=hit.score,
                label=source_label(hit), chunk=hit.chunk.ordinal))

    def _timing_line(self, done: Done) -> str:
        """`-v`'s closing line; figures the server gave that cannot be true show as "?"."""
        now = time.monotonic()
        first = (self._first_token or now) - self._started
        rate = (done.eval_count / done.eval_duration_ns * 1e9
                if done.eval_count and done.eval_duration_ns else None)
        if rate is not None and rate > MAX_PLAUSIBLE_RATE:  # a server's junk durations
            rate = None
        return messages.ANSWER_VERBOSE_TIMINGS.format(
            total=now - self._started, first=first,
            tokens="?" if done.eval_count is None else done.eval_count,
            rate="?" if rate is None else f"{rate:.1f}",
            prompt="?" if done.prompt_eval_count is None else done.prompt_eval_count,
        )

    def _status(self, text: str) -> None:
        """A line saying what docai waits for, replaced by the next one or erased by the
        answer; only on a terminal (a pipe would keep it), dimmed when colours are on."""
        if not self._terminal or self._verbosity <= QUIET or self._replayed:
            return
        self._clear_status()
        self._end_line()
        self._status_line = text
        self._write(self._dim(text))

    def _clear_status(self) -> None:
        if self._status_line:
            self._status_line = ""
            self._write(ERASE_LINE)
            self._at_line_start = True

    def _end_line(self) -> None:
        if not self._at_line_start:
            self._write("\n")

    def _line(self, text: str) -> None:
        self._clear_status()
        self._end_line()
        self._write(text + "\n")

    def _say(self, text: str) -> None:
        """A note for the user on stderr, so stdout carries only the answer when piped."""
        self._out.flush()
        self._err.write(text + "\n")
        self._err.flush()

    def _dim(self, text: str) -> str:
        return f"{DIM}{text}{RESET}" if self._color else text

    def _write(self, text: str) -> None:
        if not text:
            return
        self._out.write(text)
        self._out.flush()
        self._at_line_start = text.endswith("\n") or text.endswith(ERASE_LINE)
