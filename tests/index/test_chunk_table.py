"""ChunkTable: chunks stored as columns read back exactly, however the table was assembled."""

from __future__ import annotations

import numpy as np
import pytest

from docai.index.chunk_table import ChunkTable, Strings
from docai.records import Chunk, Location

CHUNKS = [
    Chunk("guia/b.md", ("Instalação", "Com pip"), 0, "Instalação > Com pip\npip install", 9,
          Location("line", 120)),
    Chunk("guia/b.md", ("Instalação",), 1, "çã ü 日本 😀", 7, Location("page", 47)),
    Chunk("a.md", (), 0, "", 0),  # no heading path, empty text
    Chunk("a.md", ("", "x\ny"), 1, "lone surrogate \ud800 kept", 3),
    Chunk("c.md", ("Fim",), 4, "fim", 1, Location("cell", 3)),
]


def test_a_table_reads_back_the_chunks_it_was_made_of() -> None:
    table = ChunkTable.of(CHUNKS)
    assert len(table) == len(CHUNKS)
    assert list(table) == CHUNKS
    assert [table[i] for i in range(len(CHUNKS))] == CHUNKS
    assert table[np.int64(1)] == CHUNKS[1]
    assert table[-1] == CHUNKS[-1]
    assert table[1:3] == tuple(CHUNKS[1:3])
    assert table.sources == ("guia/b.md", "a.md", "c.md")
    assert table.tokens.tolist() == [chunk.tokens for chunk in CHUNKS]
    with pytest.raises(IndexError):
        table[len(CHUNKS)]


def test_a_table_is_its_own_table() -> None:
    table = ChunkTable.of(CHUNKS)
    assert ChunkTable.of(table) is table


@pytest.mark.parametrize("cuts", [(0, 5), (0, 2, 5), (0, 1, 3, 4, 5), (0, 3, 3, 5)])
def test_slices_joined_again_equal_the_whole(cuts: tuple[int, ...]) -> None:
    whole = ChunkTable.of(CHUNKS)
    parts = [whole.slice(start, stop) for start, stop in zip(cuts, cuts[1:], strict=False)]
    joined = ChunkTable.join(parts)
    assert list(joined) == CHUNKS
    assert joined.sources == whole.sources
    assert np.array_equal(joined.source_ids, whole.source_ids)
    assert np.array_equal(joined.texts.data, whole.texts.data)


def test_a_slice_lists_only_its_own_sources_in_order_of_first_row() -> None:
    table = ChunkTable.of([CHUNKS[2], CHUNKS[0], CHUNKS[3]])  # a, b, a
    part = table.slice(1, 3)
    assert part.sources == ("guia/b.md", "a.md")
    assert list(part) == [CHUNKS[0], CHUNKS[3]]


def test_empty_tables() -> None:
    assert len(ChunkTable.of([])) == 0
    assert list(ChunkTable.join([])) == []
    assert list(ChunkTable.join([ChunkTable.of([]), ChunkTable.of(CHUNKS[:1])])) == CHUNKS[:1]


def test_iteration_decodes_only_what_it_reaches() -> None:
    table = ChunkTable.of(CHUNKS)
    bad = table.texts.data.copy()
    end = table.texts.offsets[-1]
    bad[end - 1] = 0xFF  # invalid UTF-8 in the last text only
    damaged = ChunkTable(table.sources, table.source_ids, table.ordinals, table.tokens,
                         Strings(bad, table.texts.offsets), table.heading_parts,
                         table.heading_offsets,
                   table.location_units, table.location_numbers)
    assert next(chunk for chunk in damaged if chunk.source == "a.md") == CHUNKS[2]


@pytest.mark.parametrize(
    "offsets",
    [[1, 3], [0, 2], [0, 4, 3], [0, 1]],  # not from 0, not to the end, decreasing, inside "ç"
)
def test_bad_string_offsets_are_refused(offsets: list[int]) -> None:
    data = np.frombuffer("çã".encode(), dtype=np.uint8)
    with pytest.raises(ValueError):
        Strings(data, np.array(offsets, dtype=np.int64))


def test_columns_of_other_lengths_or_types_are_refused() -> None:
    table = ChunkTable.of(CHUNKS)
    with pytest.raises(ValueError):
        ChunkTable(table.sources, table.source_ids[:-1], table.ordinals, table.tokens,
                   table.texts, table.heading_parts, table.heading_offsets,
                   table.location_units, table.location_numbers)
    with pytest.raises(ValueError):
        ChunkTable(table.sources, table.source_ids, table.ordinals.astype(np.float64),
                   table.tokens, table.texts, table.heading_parts, table.heading_offsets,
                   table.location_units, table.location_numbers)
    with pytest.raises(ValueError):
        ChunkTable(table.sources[:1], table.source_ids, table.ordinals, table.tokens,
                   table.texts, table.heading_parts, table.heading_offsets,
                   table.location_units, table.location_numbers)


def test_first_of_finds_a_sources_first_chunk_or_none():
    chunks = [Chunk("b.md", ("B",), 0, "b0", 1), Chunk("a.md", ("A",), 0, "a0", 1),
              Chunk("a.md", ("A",), 1, "a1", 1)]
    table = ChunkTable.of(chunks)
    assert table.first_of("a.md") == chunks[1]
    assert table.first_of("missing.md") is None
