"""The terms of a collection a client has already read, so a question reads only new ones.

A candidate chunk's terms (a few thousand per question) are what a client would otherwise
read from the database at every question, joining two tables as large as the vocabulary.
A term's text never changes for its id (terms are only ever added), and its document
frequency changes only with the collection: the cache holds both, is emptied when the
collection's generation or revision moves on, and is bounded (emptied when full: a plain
dict, because a question looks up thousands of terms and an LRU's bookkeeping per lookup
cost more than the reads it saved), so a client's memory still does not grow with the
collection.
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
        # pack rows whose chunk's every term is held: their terms need not be read again
        self._rows: set[int] = set()

    def for_version(self, generation: int, revision: int) -> TermCache:
        """This cache, emptied first when the collection is not the version it holds."""
        if self._version != (generation, revision):
            self._terms.clear()
            self._rows.clear()
            self._version = (generation, revision)
        return self

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

    def add(self, terms: dict[int, tuple[str, int]], rows: list[int] | None = None) -> None:
        """Hold `terms`: every term of the chunks at pack `rows` among them, if given."""
        if len(self._terms) + len(terms) > self._max_terms:
            self._terms.clear()
            self._rows.clear()
        if len(terms) <= self._max_terms:
            self._terms.update(terms)
            self._rows.update(rows or ())

    def rows_to_read(self, rows: list[int]) -> list[int]:
        """The pack rows among `rows` whose chunks' terms are not all held."""
        return [row for row in rows if row not in self._rows]
