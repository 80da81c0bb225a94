"""The client's term cache: what it holds is never used for another version of the
collection, and it stays within its bound."""

from docai.store.term_cache import TermCache


def test_a_new_revision_or_generation_reads_every_term_again() -> None:
    cache = TermCache().for_version(1, 7)
    cache.add({10: ("porta", 3), 11: ("servidor", 5)})
    assert cache.for_version(1, 7).lookup([10, 11, 12]) == (
        {10: ("porta", 3), 11: ("servidor", 5)}, [12])
    assert cache.for_version(1, 8).lookup([10, 11]) == ({}, [10, 11])
    cache.add({10: ("porta", 4)})
    assert cache.for_version(2, 8).lookup([10]) == ({}, [10])


def test_the_least_recently_used_terms_go_first_past_the_bound() -> None:
    cache = TermCache(max_terms=2).for_version(1, 1)
    cache.add({1: ("a", 1), 2: ("b", 1)})
    cache.lookup([1])
    cache.add({3: ("c", 1)})
    assert cache.lookup([1, 2, 3]) == ({1: ("a", 1), 3: ("c", 1)}, [2])
