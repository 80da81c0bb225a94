"""The terms of a collection a client has already read, so a question reads only new ones.

A candidate chunk's terms (a few thousand per question) are what a client would otherwise
read from the database at every question, joining two tables as large as the vocabulary.
A term's text never changes for its id (terms are only ever added), and its document
frequency changes only with the collection: the cache holds both, is emptied when the
collection's generation or revision moves on, and is bounded (emptied when full: a plain
dict, because a question looks up thousands of terms and an LRU's bookkeeping per lookup
cost more than the reads it saved), so a client's memory still does not grow with the
collection. Which ids it holds is also kept as a bitmap, sent with a question's chunk read
so that the database returns only the terms the client lacks (`held`).
"""

from __future__ import annotations

# About 250 bytes a term: at most ~12 MB, a few hundred questions' worth of candidates.
MAX_TERMS = 50_000


class TermCache:
    """term id -> (text, document frequency), for one version of one collection."""

    def __init__(self, max_terms: int = MAX_TERMS) -> None:
        self._terms: dict[int, tuple[str, int]] = {}
        self._max_terms = max_terms
        self._version: tuple[int, int] | None = None
        # bit `id % 8` of byte `id // 8` set for each id held (PostgreSQL's get_bit order)
        self._held = bytearray()

    def for_version(self, generation: int, revision: int) -> TermCache:
        """This cache, emptied first when the collection is not the version it holds."""
        if self._version != (generation, revision):
            self._clear()
            self._version = (generation, revision)
        return self

    def _clear(self) -> None:
        self._terms.clear()
        self._held = bytearray()

    def lookup(self, term_ids: list[int]) -> tuple[dict[int, tuple[str, int]], list[int]]:
        """The terms held, and the ids of those not held."""
        found: dict[int, tuple[str, int]] = {}
        missing: list[int] = []
        held = self._terms.get
        for term_id in term_ids:
            entry = held(term_id)
            if entry is None:
                missing.append(term_id)
            else:
                found[term_id] = entry
        return found, missing

    def add(self, terms: dict[int, tuple[str, int]]) -> None:
        """Hold `terms` (emptied first when they would take it past its bound)."""
        if len(self._terms) + len(terms) > self._max_terms:
            self._clear()
        if len(terms) > self._max_terms:
            return
        self._terms.update(terms)
        if terms:
            bitmap = self._held
            top = max(terms) // 8 + 1
            if len(bitmap) < top:
                bitmap.extend(bytes(top - len(bitmap)))
            for term_id in terms:
                bitmap[term_id >> 3] |= 1 << (term_id & 7)

    def held(self) -> bytes:
        """The ids held, as a bitmap: bit `id % 8` of byte `id // 8` (an id past its end
        is not held), as PostgreSQL's `get_bit` reads a bytea."""
        return bytes(self._held)
