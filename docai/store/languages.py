"""A collection's languages in the shared store: the local index's sample, taken when the
indexer packs a generation and stored with it.

Why at index time: a bridged question (`docai.retrieval.crosslang`) needs the collection's
languages, which the local index samples from 64 passages evenly spaced in chunk order.
The indexer has every chunk and the order (each chunk's pack row is its local row), so it
samples the same rows and the same texts once per packing, and a client reads the result
with the generation (no statement of its own). A generation an older docai wrote has none
(NULL): its questions are not bridged until the next `docai index --store` packs it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import psycopg

from docai.retrieval.crosslang import collection_languages
from docai.store.untrusted import clean_text


class _RowsRead:
    """A stand-in for a collection's texts that records which rows the sample reads."""

    def __init__(self, rows: int) -> None:
        self._rows = rows
        self.read: list[int] = []

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, row: int, /) -> str:
        self.read.append(row)
        return ""


class _SampledTexts:
    """The sampled rows' texts, as the local index's chunk table gives them."""

    def __init__(self, rows: int, texts: Mapping[int, str]) -> None:
        self._rows = rows
        self._texts = texts

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, row: int, /) -> str:
        return self._texts[row]


def write(conn: psycopg.Connection[Any], generation: int) -> None:
    """The generation's languages from its packed chunks (pack rows set), in the caller's
    transaction."""
    by_row = {int(row): int(chunk_id) for chunk_id, row in conn.execute(
        "SELECT id, pack_row FROM docai_chunks WHERE generation_id = %s", (generation,))}
    asked = _RowsRead(len(by_row))
    collection_languages(asked)
    wanted = {by_row[row]: row for row in asked.read}
    texts = {wanted[int(chunk_id)]: clean_text(text) for chunk_id, text in conn.execute(
        "SELECT id, text FROM docai_chunks WHERE id = ANY(%s)", (list(wanted),))}
    shares = collection_languages(_SampledTexts(len(by_row), texts))
    conn.execute("UPDATE docai_generations SET languages = %s WHERE id = %s",
                 (json.dumps(dict(shares)), generation))  # in the sample's order (ties)


def read(stored: str | None) -> Mapping[str, float]:
    """The stored languages; {} (never bridged, as for a generation without them) when there
    are none or the row is not a mapping of language names to shares."""
    if stored is None:
        return {}
    try:
        found = json.loads(stored)
    except ValueError:
        return {}
    if not isinstance(found, dict) or not all(
            isinstance(name, str) and isinstance(share, float) and math.isfinite(share)
            and 0.0 <= share <= 1.0 for name, share in found.items()):
        return {}
    return found
