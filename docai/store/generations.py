"""A collection's generations: which one an indexing run fills, and dropping the ones it
no longer needs.

`--rebuild` or a new parser, chunker or analyser builds a generation the readers do not see
and switches to it in one UPDATE; the next run resumes an interrupted one, whatever its
options. A generation left by a run killed between the switch and the old one's drop is
neither current nor being built: the next run drops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg

from docai.chunking import CHUNKER_VERSION
from docai.loading import PARSER_VERSION
from docai.settings import Settings
from docai.text.analysis import ANALYZER_VERSION


@dataclass(frozen=True, slots=True)
class Versions:
    """What a generation's terms and chunks depend on: a generation made by other code is
    never extended, it is rebuilt."""

    parser: str
    chunker: str
    analyzer: str
    chunk_tokens: int
    chunk_overlap: int
    encoding: str

    @classmethod
    def of(cls, settings: Settings) -> Versions:
        chunking = settings.chunking
        return cls(PARSER_VERSION, CHUNKER_VERSION, ANALYZER_VERSION, chunking.max_tokens,
                   chunking.overlap_tokens, chunking.encoding)

    def as_row(self) -> tuple[object, ...]:
        return (self.parser, self.chunker, self.analyzer, self.chunk_tokens,
                self.chunk_overlap, self.encoding)


def target(
    conn: psycopg.Connection[Any], collection_id: int, current: int | None,
    building: int | None, versions: Versions, rebuild: bool,
) -> tuple[int, bool]:
    """The generation to fill, and whether it is an interrupted rebuild being resumed."""
    with conn.transaction():
        if building is not None:
            if versions_of(conn, building) == versions:
                return building, True
            drop_generation(conn, building)
        if current is not None and not rebuild and versions_of(conn, current) == versions:
            return current, False
        (new,) = one(conn, (
            "INSERT INTO docai_generations (collection_id, parser_version, chunker_version, "
            "analyzer_version, chunk_tokens, chunk_overlap, encoding) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id"),
            (collection_id, *versions.as_row()))
        conn.execute("UPDATE docai_collections SET building_generation = %s WHERE id = %s",
                     (new, collection_id))
        return int(new), False


def collect_orphans(
    conn: psycopg.Connection[Any], collection_id: int, current: int | None,
    building: int | None,
) -> int:
    """Drop the collection's generations that are neither current nor being built (under
    the collection's lock, so no other run is filling one). How many were dropped."""
    orphans = [int(row[0]) for row in conn.execute(
        "SELECT id FROM docai_generations WHERE collection_id = %s "
        "AND id IS DISTINCT FROM %s AND id IS DISTINCT FROM %s",
        (collection_id, current, building))]
    conn.commit()
    for generation in orphans:
        drop_generation(conn, generation)
    return len(orphans)


def versions_of(conn: psycopg.Connection[Any], generation: int) -> Versions | None:
    row = conn.execute(
        "SELECT parser_version, chunker_version, analyzer_version, chunk_tokens, "
        "chunk_overlap, encoding FROM docai_generations WHERE id = %s", (generation,)
    ).fetchone()
    return Versions(*row) if row else None


def drop_generation(conn: psycopg.Connection[Any], generation: int) -> None:
    """A generation's rows out, in one transaction: table by table (its keys would take
    them too, but row by row through the chunks)."""
    with conn.transaction():
        conn.execute("DELETE FROM docai_postings WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_packs WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_term_stats WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_windows WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_chunks WHERE generation_id = %s", (generation,))
        conn.execute("DELETE FROM docai_generations WHERE id = %s", (generation,))


def one(conn: psycopg.Connection[Any], query: str, params: tuple[object, ...]) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None, query  # each query here returns exactly one row
    return row
