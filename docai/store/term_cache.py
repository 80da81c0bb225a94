"""The terms of a collection a client has already read, so a question reads only new ones.

A candidate chunk's terms (a few thousand per question) are what a client would otherwise
read from the database at every question, joining two tables as large as the vocabulary.
A term's text never changes for its id (terms are only ever added), and its document
frequency changes only with the collection: the cache holds both, is emptied when the
collection's generation or revision moves on, and is bounded (least recently used terms
go first), so a client's memory still does not grow with the collection.
"""

from __future__ import annotations

from cachetools import LRUCache

# About 250 bytes a term: at most ~12 MB, a few hundred questions' worth of candidates.
MAX_TERMS = 50_000


class TermCache:
    """term id -> (text, document frequency), for one version of one collection."""

    def __init__(self, max_terms: int = MAX_TERMS) -> None:
        self._terms: LRUCache[int, tuple[str, int]] = LRUCache(maxsize=max_terms)
        self._version: tuple[int, int] | None = None

    def for_version(self, generation: int, revision: int) -> TermCache:
        """This cache, emptied first when the collection is not the version it holds."""
        if self._version != (generation, revision):
            self._terms.clear()
            self._version = (generation, revision)
        return self

    def lookup(self, term_ids: list[int]) -> tuple[dict[int, tuple[str, int]], list[int]]:
        """The terms held, and the ids of those not held."""
        found: dict[int, tuple[str, int]] = {}
        missing: list[int] = []
        for term_id in term_ids:
            entry = self._terms.get(term_id)
            if entry is None:
                missing.append(term_id)
            else:
                found[term_id] = entry
        return found, missing

    def add(self, terms: dict[int, tuple[str, int]]) -> None:
        for term_id, entry in terms.items():
            self._terms[term_id] = entry
