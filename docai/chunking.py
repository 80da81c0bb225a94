"""Cut documents into retrievable chunks of at most `max_tokens` tokens.

Each chunk is a slice of one section's text, prefixed with a header line (the heading path,
or the document title) so a passage recovered alone still says what it is about. Slices
end at the most natural boundary that fits: paragraph, then line, then sentence, then word,
and only as a last resort at a token boundary (a giant word, a CJK run without spaces).
Consecutive chunks of a section share a short tail (`overlap_tokens`) so a fact that sits
on a boundary is still whole in one of them.

Speed matters (this runs over every file at index time): a section is encoded once and
slices are measured by binary search over token offsets. Because token counts are not
additive across concatenation, each finished chunk is counted exactly once more and
shrunk in the rare case the estimate was short.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left
from dataclasses import dataclass

from docai.records import Chunk, Document, Section, join_heading
from docai.settings import ChunkSettings
from docai.text import tokens
from docai.text.tokens import count_tokens, get_encoding, token_offsets, truncate_to_tokens
from docai.versioning import code_version

# Natural boundaries, coarsest first. Every separator is whitespace (or empty, after CJK
# sentence marks), so text dropped between two slices is never anything but whitespace.
# Bump whenever the chunks cut from the same sections change: cached chunks are keyed on
# it. A hash of this module and of the token counting it cuts by is added anyway.
CHUNKER_VERSION = code_version("1", modules=[sys.modules[__name__], tokens])

_PARAGRAPH = re.compile(r"\n[^\S\n]*\n\s*")
_LINE = re.compile(r"\n\s*")
_SENTENCE_END = r"(?<=[.!?…])\s+|(?<=[.!?…][\"'”’»)\]])\s+|(?<=[。！？])\s*"
_SENTENCE = re.compile(_SENTENCE_END)
_WORD = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")
_LEVELS = (_PARAGRAPH, _LINE, _SENTENCE, _WORD)
# The same separators, matched as late as possible in a window (greedy prefix).
_LAST_SEPARATOR = tuple(re.compile(r"(?s:.*)(" + level.pattern + ")") for level in _LEVELS)
# Where a repeated tail may start: after a line break or the end of a sentence.
_TAIL_START = re.compile(r"\n\s*|" + _SENTENCE_END)


@dataclass(frozen=True, slots=True)
class Span:
    """Where a chunk's body lies in its section's text.

    `text[overlap_start:start]` repeats the end of the previous chunk (plus the whitespace
    after it); `text[start:end]` is new. The new parts of a section's spans cover every
    non-whitespace character of the section, in order.
    `tokens` is the exact count of the chunk text (header line included).
    """

    overlap_start: int
    start: int
    end: int
    tokens: int


def chunk_document(document: Document, settings: ChunkSettings) -> tuple[Chunk, ...]:
    """All chunks of a document, numbered 0..n-1 in reading order; blank sections give none."""
    chunks: list[Chunk] = []
    for section in document.sections:
        header = header_line(document, section, settings)
        for span in plan_section(section.text, header, settings):
            text = header + section.text[span.overlap_start : span.end]
            chunks.append(
                Chunk(
                    source=document.source,
                    heading_path=section.heading_path,
                    ordinal=len(chunks),
                    text=text,
                    tokens=span.tokens,
                    location=section.location_at(span.overlap_start),
                )
            )
    return tuple(chunks)


def header_line(document: Document, section: Section, settings: ChunkSettings) -> str:
    """The first line of every chunk of `section`, newline included.

    It may take at most half of the budget, so an absurd heading path cannot starve the body.
    """
    label = join_heading(section.heading_path) or document.title or document.source
    label = " ".join(label.split())
    budget = settings.max_tokens // 2
    line = label + "\n"
    if count_tokens(line, settings.encoding) <= budget:
        return line
    for room in range(budget - 1, 0, -1):
        line = truncate_to_tokens(label, room, settings.encoding).rstrip() + "\n"
        if line.strip() and count_tokens(line, settings.encoding) <= budget:
            return line
    return ""


def plan_section(text: str, header: str, settings: ChunkSettings) -> tuple[Span, ...]:
    """The spans of `text` that become chunks once prefixed with `header`."""
    first, last = _trim(text, 0, len(text))
    if first == last:
        return ()
    # A header line ends with a newline and the body starts with a non-space, so the
    # tokeniser splits them apart and their counts add up exactly.
    header_tokens = count_tokens(header, settings.encoding)
    body = get_encoding(settings.encoding).encode_ordinary(text[first:last])
    if header_tokens + len(body) <= settings.max_tokens:
        return (Span(first, first, last, header_tokens + len(body)),)
    starts = [first + offset for offset in token_offsets(text[first:last], settings.encoding, body)]
    return _Planner(text, header, header_tokens, starts, settings).plan(first, last)


class _Planner:
    """Working state for one oversized section: its text and where its tokens start."""

    def __init__(
        self,
        text: str,
        header: str,
        header_tokens: int,
        starts: list[int],
        settings: ChunkSettings,
    ):
        self.text = text
        self.header = header
        self.header_tokens = header_tokens
        self.max_tokens = settings.max_tokens
        self.encoding = settings.encoding
        self.starts = starts
        self.budget = max(1, settings.max_tokens - header_tokens)
        self.overlap = min(settings.overlap_tokens, self.budget // 2)

    def token_at(self, position: int) -> int:
        """Index of the (first) token that covers character `position`."""
        index = bisect_left(self.starts, position)
        if index == len(self.starts) or self.starts[index] != position:
            index -= 1
        return index

    def tokens(self, start: int, end: int) -> int:
        """Estimated tokens of text[start:end]: the section's tokens that overlap the slice."""
        return bisect_left(self.starts, end) - self.token_at(start)

    def plan(self, first: int, last: int) -> tuple[Span, ...]:
        # Units leave room for a full overlap, so a tail can usually precede them.
        units = self.units(first, last, 0, self.budget - self.overlap)
        spans: list[Span] = []
        i = 0
        while i < len(units):
            start, end = units[i]
            overlap_start = self.tail_start(spans[-1], end) if spans else start
            j = i
            while j + 1 < len(units) and self.tokens(overlap_start, units[j + 1][1]) <= self.budget:
                j += 1
            # Verify exactly; shrink: drop trailing units, then the overlap, then cut the unit.
            while (tokens := self.exact(overlap_start, units[j][1])) > self.max_tokens:
                if j > i:
                    j -= 1
                elif overlap_start < start:
                    overlap_start = start
                elif not self.cut_exactly(units, i):
                    break  # one character alone exceeds a tiny budget; keep the text whole
            spans.append(Span(overlap_start, units[i][0], units[j][1], tokens))
            i = j + 1
        return tuple(spans)

    def exact(self, start: int, end: int) -> int:
        return count_tokens(self.header + self.text[start:end], self.encoding)

    def units(self, start: int, end: int, level: int, limit: int) -> list[tuple[int, int]]:
        """Trimmed slices of at most `limit` tokens, cut at the coarsest boundary needed.

        Each slice is the longest run of this level's pieces that fits (found with one
        backwards regex match per slice, not one Python step per word); only a piece that
        alone is too long goes down to the next level.
        """
        if self.tokens(start, end) <= limit:
            return [(start, end)]
        if level == len(_LEVELS):
            return self.token_units(start, end, limit)
        text = self.text
        result: list[tuple[int, int]] = []
        cursor = start
        while cursor < end:
            if self.tokens(cursor, end) <= limit:
                result.append((cursor, end))
                break
            reach = min(self.starts[self.token_at(cursor) + limit], end)
            last = _LAST_SEPARATOR[level].match(text, cursor, reach)
            if last is not None and last.start(1) > cursor:
                result.append(_trim(text, cursor, last.start(1)))
                cursor = _trim(text, last.end(1), end)[0]
                continue
            following = _LEVELS[level].search(text, cursor + 1, end)
            piece_end = end if following is None else following.start()
            result.extend(self.units(*_trim(text, cursor, piece_end), level + 1, limit))
            cursor = end if following is None else _trim(text, following.end(), end)[0]
        return result

    def token_units(self, start: int, end: int, limit: int) -> list[tuple[int, int]]:
        """Last resort: cut every `limit` tokens, always on a character boundary."""
        starts = self.starts
        result = []
        while start < end:
            cut = self.token_at(start) + limit
            stop = end if cut >= len(starts) else min(max(starts[cut], start + 1), end)
            piece = _trim(self.text, start, stop)
            if piece[0] < piece[1]:
                result.append(piece)
            start = _trim(self.text, stop, end)[0]
        return result

    def tail_start(self, previous: Span, next_end: int) -> int:
        """Where the repeated tail of `previous` begins before the unit ending at `next_end`.

        Prefer whole sentences or lines, then whole words, then a token-level tail; the tail
        holds at most `overlap` tokens and must leave the next unit room within the budget.
        """
        end = previous.end
        unit_start = _trim(self.text, end, next_end)[0]
        if self.overlap == 0:
            return unit_start
        starts = self.starts
        # No tail of `overlap` tokens reaches further back than this; look no earlier.
        earliest = max(previous.start, starts[max(bisect_left(starts, end) - self.overlap, 0)])

        def fits(candidate: int) -> bool:
            return (
                candidate < end
                and self.tokens(candidate, end) <= self.overlap
                and self.tokens(candidate, next_end) <= self.budget
                and count_tokens(self.text[candidate:end], self.encoding) <= self.overlap
            )

        for pattern in (_TAIL_START, _WORD):
            candidates = [m.end() for m in pattern.finditer(self.text, earliest, end)]
            if earliest == previous.start:
                candidates.insert(0, earliest)
            # Sizes shrink as candidates move right: the first that fits is the longest tail.
            for candidate in candidates:
                if fits(candidate):
                    return candidate
        candidate = _trim(self.text, earliest, end)[0]
        return candidate if fits(candidate) else unit_start

    def cut_exactly(self, units: list[tuple[int, int]], i: int) -> bool:
        """Split units[i] so its first part fits once re-encoded alone; False if it cannot."""
        start, end = units[i]
        room = self.max_tokens - self.header_tokens
        local = token_offsets(self.text[start:end], self.encoding)
        cut = start + local[room] if 0 < room < len(local) else start + 1
        cut = min(max(cut, start + 1), end)
        if cut >= end:
            return False
        head = _trim(self.text, start, cut)
        tail = _trim(self.text, cut, end)
        units[i : i + 1] = [part for part in (head, tail) if part[0] < part[1]]
        return True


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink text[start:end] to exclude surrounding whitespace.

    Called with ranges as long as the rest of a section, so it never copies the range:
    a regex finds the first non-space, and the end is walked back in small windows.
    """
    first = _NON_SPACE.search(text, start, end)
    if first is None:
        return end, end
    start = first.start()
    while True:
        window = max(start, end - 256)
        kept = len(text[window:end].rstrip())
        if kept:
            return start, window + kept
        end = window
