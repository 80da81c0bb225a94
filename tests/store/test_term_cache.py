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


def test_a_full_cache_is_emptied_before_it_grows_past_its_bound() -> None:
    cache = TermCache(max_terms=2).for_version(1, 1)
    cache.add({1: ("a", 1), 2: ("b", 1)})
    cache.add({3: ("c", 1)})
    assert cache.lookup([1, 2, 3]) == ({3: ("c", 1)}, [1, 2])
    cache.add({4: ("d", 1), 5: ("e", 1), 6: ("f", 1)})
    assert cache.lookup([3, 4, 5, 6]) == ({}, [3, 4, 5, 6])


def held_ids(cache: TermCache) -> list[int]:
    """The ids set in the bitmap sent to the database, read as PostgreSQL's get_bit does."""
    bitmap = cache.held()
    return [n for n in range(8 * len(bitmap)) if bitmap[n // 8] >> (n % 8) & 1]


def test_the_bitmap_sent_names_exactly_the_terms_held_until_the_cache_is_emptied() -> None:
    cache = TermCache(max_terms=3).for_version(1, 1)
    cache.add({1: ("a", 1), 9: ("b", 1)})
    assert held_ids(cache) == [1, 9]
    cache.add({30: ("c", 1), 4: ("d", 1)})  # full: emptied, then these held
    assert held_ids(cache) == [4, 30]
    assert cache.for_version(1, 2).held() == b""
