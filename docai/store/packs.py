"""Each term's postings as one binary row, so a question is ranked by numpy, not by SQL.

Adding up a question's posting rows in the database costs per row: at 100k chunks a
question of everyday words touches 30-90k of them, and PostgreSQL took 0.5-2 s. A *pack*
holds one term's postings as `POSTING` records (the chunk's pack row, the count, the
chunk's length and its TF-IDF length), so a question reads one row per term, a few hundred
kilobytes, and `rank` scores them with the local index's own scorers
(`docai.retrieval.search_index.ranking`): the same scores and order, to the last bit.

A chunk's *pack row* is its place in (source, ordinal) order, the local index's tie-break,
so equal scores are ordered as there. Its TF-IDF length is computed here as
`TfidfScorer.fit` computes it (`tfidf_norms`), over the whole collection.

Packs are rewritten when an indexing run ends (`pack`): in between, while files change, a
reader sees `Generation.packed` false and ranks through the database as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from docai.index.scoring import Bm25Scorer, TfidfScorer, smooth_idf_of, tfidf_norms
from docai.index.sparse import Csc
from docai.retrieval.params import RetrievalParams
from docai.retrieval.search_index import ranking

POSTING = np.dtype([("row", "<i4"), ("count", "<i4"), ("length", "<i4"), ("norm", "<f8")])


@dataclass(frozen=True, slots=True)
class Packing:
    """What an indexing run writes: per chunk (in the order given to `pack`) its pack row
    and TF-IDF length, and per term id its postings (`POSTING` records, rows ascending)."""

    rows: np.ndarray
    norms: np.ndarray
    postings: dict[int, bytes]


def pack(
    keys: Sequence[tuple[str, int]],
    vectors: Sequence[tuple[np.ndarray, np.ndarray]],
    terms: Mapping[int, str],
) -> Packing:
    """The packs of a whole collection: each chunk's (source, ordinal) and term vector (term
    ids, counts), and the text of every term id they use."""
    size = len(keys)
    order = sorted(range(size), key=keys.__getitem__)
    rows = np.empty(size, dtype=np.int64)
    rows[np.array(order, dtype=np.int64)] = np.arange(size)
    by_text = sorted(terms, key=terms.__getitem__)  # columns in term order, as the local index
    term_ids = np.array(by_text, dtype=np.int64)
    by_id = np.argsort(term_ids)  # columns in id order, to find an id's column
    ids = np.concatenate([np.zeros(0, dtype=np.int64)]
                         + [np.asarray(v[0], dtype=np.int64) for v in vectors])
    counts = np.concatenate([np.zeros(0, dtype=np.int32)]
                            + [np.asarray(v[1], dtype=np.int32) for v in vectors])
    entry_rows = np.repeat(rows, [len(v[0]) for v in vectors])
    columns = by_id[np.searchsorted(term_ids[by_id], ids)]
    layout = np.lexsort((entry_rows, columns))
    indptr = np.zeros(len(term_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(columns, minlength=len(term_ids)), out=indptr[1:])
    matrix = Csc(counts[layout].astype(np.int32), entry_rows[layout].astype(np.int32), indptr,
                 (size, len(term_ids)))
    norms = tfidf_norms(matrix, smooth_idf_of(np.diff(indptr), size))
    lengths = np.bincount(entry_rows, weights=counts, minlength=size).astype(np.int64)
    records = np.empty(len(layout), dtype=POSTING)
    records["row"] = matrix.indices
    records["count"] = matrix.data
    records["length"] = lengths[matrix.indices]
    records["norm"] = norms[matrix.indices]
    postings = {int(term_ids[j]): records[indptr[j]:indptr[j + 1]].tobytes()
                for j in range(len(term_ids)) if indptr[j + 1] > indptr[j]}
    return Packing(rows, norms[rows], postings)


def rank(
    method: str,
    question: Mapping[str, int],
    packs: Mapping[str, tuple[int, bytes]],
    rows: int,
    average_length: float,
    params: RetrievalParams,
    k: int,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The lexical ranking of the whole collection for a question, as `SearchIndex.rank`
    gives it: (pack rows, scores), best first; None when no question term is known.

    `question` counts the question's terms; `packs` holds, per term the collection knows,
    its document frequency and postings; `rows` and `average_length` are the collection's.
    """
    terms = sorted(t for t in question if t in packs)  # column order: the terms' text order
    if not terms or k < 1:
        return None
    records = [_postings(packs[t][1], rows) for t in terms]
    every_row = np.concatenate([r["row"] for r in records])
    held_rows, compact = np.unique(every_row, return_inverse=True)
    indptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in records], out=indptr[1:])
    columns = Csc(np.concatenate([r["count"] for r in records]).astype(np.int32),
                  compact.astype(np.int32), indptr, (len(held_rows), len(terms)))
    lengths = np.zeros(len(held_rows), dtype=np.int64)
    norms = np.zeros(len(held_rows))
    lengths[compact] = np.concatenate([r["length"] for r in records])
    norms[compact] = np.concatenate([r["norm"] for r in records])
    frequency = np.array([packs[t][0] for t in terms], dtype=np.int64)
    tfidf = TfidfScorer.fit(None, columns, smooth_idf_of(frequency, rows), norms=norms)
    bm25 = Bm25Scorer.fit(None, columns, params.bm25_k1, params.bm25_b,
                          (frequency, rows, average_length), lengths=lengths)
    counts = np.array([question[t] for t in terms], dtype=np.float64)
    ranked, scores = ranking(method, tfidf, bm25, np.arange(len(terms)), counts,
                             held_rows.astype(np.int64), params, k)
    return held_rows[ranked].astype(np.int64), scores


class DamagedPack(ValueError):
    """A pack that cannot be what the indexer wrote: cut short, or naming a row the
    collection does not have."""


def _postings(blob: bytes, rows: int) -> np.ndarray:
    """One term's postings, checked: a whole number of records, each row in the collection."""
    if len(blob) % POSTING.itemsize:
        raise DamagedPack(f"{len(blob)} bytes")
    records = np.frombuffer(blob, dtype=POSTING)
    if len(records) and (records["row"].min() < 0 or records["row"].max() >= rows
                         or records["count"].min() < 1):
        raise DamagedPack("row out of range")
    return records
