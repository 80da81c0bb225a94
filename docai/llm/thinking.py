"""Separate inline `<think>...</think>` reasoning from the answer, as the text streams in.

Servers before Ollama 0.9 (and OpenAI-compatible servers without a reasoning parser) send
deepseek-r1's reasoning inside the answer text. Tags can be split across chunks (`<thi` +
`nk>`), the closing tag can be missing (the answer was cut off), text can come before
`<think>`, and the answer usually starts with blank lines after `</think>`. This module turns
such a stream into ThinkingDelta/TextDelta events while holding back as little text as
possible (only a suffix that could still become a tag).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from docai.llm.events import Event, TextDelta, ThinkingDelta

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"


def split_inline_thinking(events: Iterable[Event]) -> Iterator[Event]:
    """Re-label the reasoning inside TextDelta events; other events pass through unchanged."""
    splitter = _Splitter()
    for event in events:
        if isinstance(event, TextDelta):
            yield from splitter.feed(event.text)
        else:
            if not isinstance(event, ThinkingDelta):
                yield from splitter.finish()
            yield event
    yield from splitter.finish()


class _Splitter:
    """State of one stream: inside or outside a think block, and the undecided tail."""

    def __init__(self) -> None:
        self._pending = ""
        self._thinking = False
        self._closed_block = False  # after one think block, a literal "<think>" is just text
        self._at_segment_start = True  # leading whitespace of each segment is dropped

    def feed(self, text: str) -> list[ThinkingDelta | TextDelta]:
        self._pending += text
        return self._drain(final=False)

    def finish(self) -> list[ThinkingDelta | TextDelta]:
        return self._drain(final=True)

    def _drain(self, *, final: bool) -> list[ThinkingDelta | TextDelta]:
        out: list[ThinkingDelta | TextDelta] = []
        while self._pending:
            if self._at_segment_start:
                self._pending = self._pending.lstrip()
                if not self._pending:
                    break
                self._at_segment_start = False
            tag = self._awaited_tag()
            index = self._pending.find(tag) if tag else -1
            if index >= 0:
                self._emit(out, self._pending[:index])
                self._pending = self._pending[index + len(tag) :]
                self._closed_block = self._closed_block or self._thinking
                self._thinking = not self._thinking
                self._at_segment_start = True
                continue
            keep = 0 if final or not tag else _partial_tag_length(self._pending, tag)
            self._emit(out, self._pending[: len(self._pending) - keep])
            self._pending = self._pending[len(self._pending) - keep :]
            break
        return out

    def _awaited_tag(self) -> str:
        """The tag that would change state next; "" when none can (after the one block)."""
        if self._thinking:
            return CLOSE_TAG
        return "" if self._closed_block else OPEN_TAG

    def _emit(self, out: list[ThinkingDelta | TextDelta], text: str) -> None:
        if text:
            out.append(ThinkingDelta(text) if self._thinking else TextDelta(text))


def _partial_tag_length(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for length in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:length]):
            return length
    return 0
