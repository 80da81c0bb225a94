"""One file's rows in a generation: written and removed, each in the caller's transaction.

A file's rows are its `docai_files` row, its chunks (with their term vectors), their
postings, their window rows (which window texts each chunk has, by checksum: the keys its
vectors are stored under), the document frequencies of its terms and the generation's
totals. The window rows are written with the chunks: a chunk whose text did not change keeps
the vectors of its windows (they are keyed by text), so an edit that keeps the text, or a
rebuild, leaves an embedded collection embedded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import psycopg

from docai.index.vector_store import checksum
from docai.index.workers import ParsedFile
from docai.retrieval.params import DEFAULT_PARAMS
from docai.retrieval.windows import windows
from docai.store.generations import one


def window_keys(text: str) -> list[bytes]:
    """The keys of a chunk's windows (as the dense ranking cuts it), each once."""
    return [bytes.fromhex(checksum(window)) for window in dict.fromkeys(
        windows(text, DEFAULT_PARAMS.window_chars, DEFAULT_PARAMS.window_overlap))]


def write_windows(conn: psycopg.Connection[Any], generation: int,
                  chunks: Iterable[tuple[int, str]]) -> None:
    """The window rows of (chunk id, text) pairs."""
    with conn.cursor().copy("COPY docai_windows (generation_id, chunk_id, key) FROM STDIN "
                            "(FORMAT BINARY)") as copy:
        copy.set_types(["int8", "int8", "bytea"])
        for chunk_id, text in chunks:
            for key in window_keys(text):
                copy.write_row((generation, chunk_id, key))


def write_file(
    conn: psycopg.Connection[Any], generation: int, parsed: ParsedFile, terms: dict[str, int]
) -> None:
    """One file's rows: the file, its chunks and windows, their postings, the frequencies
    and totals."""
    block = parsed.counts
    chunks = parsed.chunks
    term_ids = _term_ids(conn, block.vocabulary, terms)
    local_to_global = np.array([term_ids[t] for t in block.vocabulary], dtype=np.int64)
    lengths = [int(np.asarray(block.data[block.indptr[i]:block.indptr[i + 1]]).sum())
               for i in range(len(chunks))]
    (file_id,) = one(conn, (
        "INSERT INTO docai_files (generation_id, source, sha256, size, tokens) "
        "VALUES (%s, %s, %s, %s, %s) RETURNING id"),
        (generation, parsed.source, parsed.sha256, parsed.size,
         sum(chunk.tokens for chunk in chunks)))
    chunk_ids = [int(row[0]) for row in conn.execute(
        "SELECT nextval(pg_get_serial_sequence('docai_chunks', 'id')) "
        "FROM generate_series(1, %s)", (len(chunks),))]
    with conn.cursor().copy(
        "COPY docai_chunks (id, generation_id, file_id, source, ordinal, heading_path, text, "
        "tokens, length, term_ids, term_counts, location_unit, location_number) FROM STDIN"
    ) as copy:
        for row, (chunk_id, chunk, length) in enumerate(zip(chunk_ids, chunks, lengths,
                                                            strict=True)):
            start, end = int(block.indptr[row]), int(block.indptr[row + 1])
            ids = local_to_global[block.indices[start:end]]
            order = np.argsort(ids)
            copy.write_row((chunk_id, generation, file_id, chunk.source, chunk.ordinal,
                            list(chunk.heading_path), chunk.text, chunk.tokens, length,
                            ids[order].tolist(), block.data[start:end][order].tolist(),
                            *((chunk.location.unit, chunk.location.number) if chunk.location
                              else (None, None))))
    write_windows(conn, generation, zip(chunk_ids, (chunk.text for chunk in chunks),
                                        strict=True))
    frequency: dict[int, int] = {}
    with conn.cursor().copy(
        "COPY docai_postings (generation_id, term_id, chunk_id, file_id, count, length) "
        "FROM STDIN"
    ) as copy:
        for row, (chunk_id, length) in enumerate(zip(chunk_ids, lengths, strict=True)):
            start, end = int(block.indptr[row]), int(block.indptr[row + 1])
            for local, count in zip(block.indices[start:end].tolist(),
                                    block.data[start:end].tolist(), strict=True):
                term_id = int(local_to_global[local])
                frequency[term_id] = frequency.get(term_id, 0) + 1
                copy.write_row((generation, term_id, chunk_id, file_id, count, length))
    if frequency:
        conn.execute(
            "INSERT INTO docai_term_stats (generation_id, term_id, df) "
            "SELECT %s, t, n FROM unnest(%s::integer[], %s::integer[]) AS u(t, n) "
            "ON CONFLICT (generation_id, term_id) DO UPDATE "
            "SET df = docai_term_stats.df + EXCLUDED.df",
            (generation, list(frequency), list(frequency.values())))
    conn.execute(
        "UPDATE docai_generations SET chunks = chunks + %s, total_length = total_length + %s, "
        "revision = revision + 1 WHERE id = %s", (len(chunks), sum(lengths), generation))


def _term_ids(
    conn: psycopg.Connection[Any], vocabulary: tuple[str, ...], known: dict[str, int]
) -> dict[str, int]:
    """The ids of `vocabulary`'s terms, created when new (`known` caches them: no other
    indexer prunes terms while this one runs, `docai.store.upkeep`)."""
    new = [term for term in vocabulary if term not in known]
    if new:
        conn.execute("INSERT INTO docai_terms (term) SELECT unnest(%s::text[]) "
                     "ON CONFLICT (term) DO NOTHING", (new,))
        for term_id, term in conn.execute(
            "SELECT id, term FROM docai_terms WHERE term = ANY(%s)", (new,)
        ):
            known[term] = int(term_id)
    return known


def remove_file(conn: psycopg.Connection[Any], generation: int, file_id: int) -> None:
    """A file's rows out, its terms' frequencies and the totals taken down with them; a
    term no chunk of the generation holds any more loses its frequency row."""
    emptied = [int(row[0]) for row in conn.execute(
        "UPDATE docai_term_stats s SET df = s.df - d.n FROM ("
        "  SELECT term_id, count(*) AS n FROM docai_postings WHERE file_id = %s "
        "  GROUP BY term_id) d "
        "WHERE s.generation_id = %s AND s.term_id = d.term_id RETURNING s.term_id, s.df",
        (file_id, generation)) if row[1] <= 0]
    if emptied:
        conn.execute("DELETE FROM docai_term_stats WHERE generation_id = %s "
                     "AND term_id = ANY(%s)", (generation, emptied))
    conn.execute(
        "UPDATE docai_generations g SET chunks = g.chunks - c.n, "
        "total_length = g.total_length - c.total, revision = g.revision + 1 FROM ("
        "  SELECT count(*) AS n, coalesce(sum(length), 0) AS total FROM docai_chunks "
        "  WHERE file_id = %s) c WHERE g.id = %s", (file_id, generation))
    conn.execute("DELETE FROM docai_postings WHERE file_id = %s", (file_id,))
    conn.execute("DELETE FROM docai_files WHERE id = %s", (file_id,))
