"""Chunks held column-wise (arrays, UTF-8 buffers), each `Chunk` built only when read.

Why: decoding every chunk of the cache into a `Chunk` object would take most of a warm
start at 100k chunks, although ranking needs only the sources, ordinals and token counts
(as arrays) and a query reads the few chunks it returns. The texts and heading paths stay
as the cache stores them, one UTF-8 buffer per column plus offsets, and are decoded on
access. Building, slicing and joining tables is how `build` assembles an index from the
cache and from freshly parsed files without touching unchanged chunks.
"""

from __future__ import annotations

import builtins
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, islice, pairwise
from typing import overload

import numpy as np

from docai.records import LOCATION_UNITS, Chunk, Location

# Lossless for every Python str, lone surrogates included (plain UTF-8 refuses them).
_ERRORS = "surrogatepass"


@dataclass(frozen=True, eq=False)
class Strings:
    """Strings packed in one UTF-8 buffer: string i is `data[offsets[i]:offsets[i + 1]]`.

    Checked on construction (offsets start at 0, never decrease, end at the buffer's end,
    and start on a character, not inside one), so a damaged cache is caught when loaded,
    not when a query reads the string.
    """

    data: np.ndarray  # uint8
    offsets: np.ndarray  # int64, one more than there are strings

    def __post_init__(self) -> None:
        if self.data.dtype != np.uint8 or self.data.ndim != 1:
            raise ValueError("string data must be a flat uint8 array")
        _check_offsets(self.offsets, len(self.data))
        starts = self.offsets[:-1][self.offsets[:-1] < len(self.data)]
        if np.any(self.data[starts] & 0xC0 == 0x80):  # a UTF-8 continuation byte
            raise ValueError("string offset inside a character")

    @classmethod
    def of(cls, strings: Iterable[str]) -> Strings:
        encoded = [text.encode("utf-8", _ERRORS) for text in strings]
        offsets = np.fromiter(accumulate(map(len, encoded), initial=0), dtype=np.int64,
                              count=len(encoded) + 1)
        return cls(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)

    @classmethod
    def join(cls, parts: Sequence[Strings]) -> Strings:
        shifts = np.cumsum([0] + [len(part.data) for part in parts])
        offsets = [np.zeros(1, dtype=np.int64)]
        offsets += [part.offsets[1:] + shift for part, shift in zip(parts, shifts, strict=False)]
        data = [np.zeros(0, dtype=np.uint8), *(part.data for part in parts)]
        return cls(np.concatenate(data), np.concatenate(offsets))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> str:
        start, end = self.offsets[index], self.offsets[index + 1]
        return str(self.data.data[start:end], "utf-8", _ERRORS)

    def matching(self, pattern: re.Pattern[bytes], rows: np.ndarray) -> np.ndarray:
        """The ids among `rows` of the strings `pattern` finds (searched in place, UTF-8).

        Each string is searched as its own zero-copy view, not by position in the buffer,
        so a lookbehind at its start never sees the end of the string before it.
        """
        view = self.data.data  # the buffer, as a memoryview
        spans = zip(rows.tolist(), self.offsets[rows].tolist(), self.offsets[rows + 1].tolist(),
                    strict=True)
        return np.array([row for row, start, end in spans if pattern.search(view[start:end])],
                        dtype=np.int64)

    def slice(self, start: int, stop: int) -> Strings:
        """Strings start..stop-1 (views of this buffer, offsets rebased)."""
        offsets = self.offsets[start:stop + 1]
        return Strings(self.data[offsets[0]:offsets[-1]], offsets - offsets[0])

    def __iter__(self) -> Iterator[str]:
        """Each string, decoded as it is reached (a scan that stops early decodes little)."""
        view = self.data.data  # the buffer, as a memoryview
        return (str(view[a:b], "utf-8", _ERRORS) for a, b in pairwise(self.offsets.tolist()))


@dataclass(frozen=True, eq=False)
class ChunkTable(Sequence[Chunk]):
    """A sequence of `Chunk`s stored as columns; row i is `self[i]`.

    `sources` lists each source once, in order of first row (as `of`, `join` and `slice`
    make it); `source_ids[i]` is row i's index into it. Chunk i's heading path is
    `heading_parts[heading_offsets[i]:heading_offsets[i + 1]]`. `source_ids`, `ordinals`,
    `tokens` and the location columns are int64 arrays, one item per chunk: `location_units`
    holds 0 for no location, else 1 + the unit's index in `LOCATION_UNITS`.
    """

    sources: tuple[str, ...]
    source_ids: np.ndarray
    ordinals: np.ndarray
    tokens: np.ndarray
    texts: Strings
    heading_parts: Strings
    heading_offsets: np.ndarray
    location_units: np.ndarray
    location_numbers: np.ndarray

    def __post_init__(self) -> None:
        rows = len(self.texts)
        for array in (self.source_ids, self.ordinals, self.tokens, self.heading_offsets,
                      self.location_units, self.location_numbers):
            if array.dtype != np.int64 or array.ndim != 1:
                raise ValueError("chunk columns must be flat int64 arrays")
        if not (len(self.source_ids) == len(self.ordinals) == len(self.tokens)
                == len(self.location_units) == len(self.location_numbers) == rows):
            raise ValueError("chunk columns of different lengths")
        if rows and (self.location_units.min() < 0
                     or self.location_units.max() > len(LOCATION_UNITS)):
            raise ValueError("chunk location unit out of range")
        if np.any((self.location_units > 0) & (self.location_numbers < 1)):
            raise ValueError("chunk location number out of range")
        if rows and (self.source_ids.min() < 0 or self.source_ids.max() >= len(self.sources)):
            raise ValueError("chunk source id out of range")
        _check_offsets(self.heading_offsets, len(self.heading_parts))
        if len(self.heading_offsets) != rows + 1:
            raise ValueError("heading offsets do not match the chunks")

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> ChunkTable:
        """`chunks` as a table (itself when it already is one)."""
        if isinstance(chunks, ChunkTable):
            return chunks
        sources = {chunk.source: None for chunk in chunks}
        source_id = {source: i for i, source in enumerate(sources)}
        paths = [chunk.heading_path for chunk in chunks]
        return cls(
            sources=tuple(sources),
            source_ids=_int64([source_id[chunk.source] for chunk in chunks]),
            ordinals=_int64([chunk.ordinal for chunk in chunks]),
            tokens=_int64([chunk.tokens for chunk in chunks]),
            texts=Strings.of(chunk.text for chunk in chunks),
            heading_parts=Strings.of(chain.from_iterable(paths)),
            heading_offsets=np.fromiter(accumulate(map(len, paths), initial=0),
                                        dtype=np.int64, count=len(paths) + 1),
            location_units=_int64([_unit_code(chunk.location) for chunk in chunks]),
            location_numbers=_int64([chunk.location.number if chunk.location else 0
                                     for chunk in chunks]),
        )

    @classmethod
    def join(cls, tables: Sequence[ChunkTable]) -> ChunkTable:
        """The rows of all tables in order (a source split across tables is listed once)."""
        if len(tables) == 1:
            return tables[0]
        sources = dict.fromkeys(chain.from_iterable(table.sources for table in tables))
        source_id = {source: i for i, source in enumerate(sources)}
        heading_shifts = np.cumsum([0] + [len(table.heading_parts) for table in tables])
        return cls(
            sources=tuple(sources),
            source_ids=np.concatenate(
                [_int64([])] + [_int64([source_id[s] for s in t.sources])[t.source_ids]
                                for t in tables]),
            ordinals=np.concatenate([_int64([])] + [table.ordinals for table in tables]),
            tokens=np.concatenate([_int64([])] + [table.tokens for table in tables]),
            texts=Strings.join([table.texts for table in tables]),
            heading_parts=Strings.join([table.heading_parts for table in tables]),
            heading_offsets=np.concatenate(
                [np.zeros(1, dtype=np.int64)]
                + [t.heading_offsets[1:] + shift
                   for t, shift in zip(tables, heading_shifts, strict=False)]),
            location_units=np.concatenate([_int64([])] + [t.location_units for t in tables]),
            location_numbers=np.concatenate(
                [_int64([])] + [t.location_numbers for t in tables]),
        )

    def slice(self, start: int, stop: int) -> ChunkTable:
        """Rows start..stop-1, sharing this table's buffers."""
        ids = self.source_ids[start:stop]
        used, first_row = np.unique(ids, return_index=True)
        used = used[np.argsort(first_row)]  # sources in order of first row, as everywhere
        remap = np.zeros(len(self.sources), dtype=np.int64)
        remap[used] = np.arange(len(used))
        headings = self.heading_offsets[start:stop + 1]
        return ChunkTable(
            sources=tuple(self.sources[i] for i in used.tolist()),
            source_ids=remap[ids],
            ordinals=self.ordinals[start:stop],
            tokens=self.tokens[start:stop],
            texts=self.texts.slice(start, stop),
            heading_parts=self.heading_parts.slice(int(headings[0]), int(headings[-1])),
            heading_offsets=headings - headings[0],
            location_units=self.location_units[start:stop],
            location_numbers=self.location_numbers[start:stop],
        )

    def __len__(self) -> int:
        return len(self.ordinals)

    def sources_by_name(self) -> tuple[list[str], np.ndarray]:
        """The sources in name order, and each chunk's source as an index into them."""
        order = sorted(range(len(self.sources)), key=self.sources.__getitem__)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return [self.sources[i] for i in order], rank[self.source_ids]

    def tiebreak(self) -> np.ndarray:
        """Each chunk's rank in (source, ordinal) order: how equal scores are ordered."""
        order = np.lexsort((self.ordinals, self.sources_by_name()[1]))
        ranks = np.empty(len(self), dtype=np.int64)
        ranks[order] = np.arange(len(self))
        return ranks

    def first_of(self, source: str) -> Chunk | None:
        """The first chunk of `source` (None when it has none), decoding no other chunk."""
        if source not in self.sources:
            return None
        rows = np.flatnonzero(self.source_ids == self.sources.index(source))
        return self[int(rows[0])] if len(rows) else None

    def file_count(self) -> int:
        return len(self.sources)

    def chunk_at(self, source: str, ordinal: int) -> Chunk | None:
        """Chunk `ordinal` of `source` (None when the index has no such chunk)."""
        if source not in self.sources:
            return None
        wanted = (self.source_ids == self.sources.index(source)) & (self.ordinals == ordinal)
        rows = np.flatnonzero(wanted)
        return self[int(rows[0])] if len(rows) else None

    @overload
    def __getitem__(self, index: int) -> Chunk: ...

    # `builtins.slice`: in this class body a bare `slice` names the method above.
    @overload
    def __getitem__(self, index: builtins.slice) -> tuple[Chunk, ...]: ...

    def __getitem__(self, index: int | builtins.slice) -> Chunk | tuple[Chunk, ...]:
        if isinstance(index, builtins.slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        row = operator.index(index)
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError("chunk index out of range")
        first, last = self.heading_offsets[row], self.heading_offsets[row + 1]
        return Chunk(
            source=self.sources[self.source_ids[row]],
            heading_path=tuple(self.heading_parts[part] for part in range(first, last)),
            ordinal=int(self.ordinals[row]),
            text=self.texts[row],
            tokens=int(self.tokens[row]),
            location=_location(int(self.location_units[row]), int(self.location_numbers[row])),
        )

    def __iter__(self) -> Iterator[Chunk]:
        """Every chunk in order, decoded as it is reached (faster than indexing row by row)."""
        parts = iter(self.heading_parts)
        paths = (tuple(islice(parts, size)) for size in np.diff(self.heading_offsets).tolist())
        sources = map(self.sources.__getitem__, self.source_ids.tolist())
        locations = map(_location, self.location_units.tolist(), self.location_numbers.tolist())
        return map(Chunk, sources, paths, self.ordinals.tolist(), iter(self.texts),
                   self.tokens.tolist(), locations)


def _int64(values: Sequence[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _unit_code(location: Location | None) -> int:
    return 0 if location is None else LOCATION_UNITS.index(location.unit) + 1


def _location(unit: int, number: int) -> Location | None:
    return None if unit == 0 else Location(LOCATION_UNITS[unit - 1], number)


def _check_offsets(offsets: np.ndarray, end: int) -> None:
    """Offsets into `end` items: int64, from 0 to `end`, never decreasing."""
    if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) == 0:
        raise ValueError("offsets must be a non-empty flat int64 array")
    if offsets[0] != 0 or offsets[-1] != end or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets out of order")

