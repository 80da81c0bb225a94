"""Search behaviour a user notices: what is found, in which order, and when nothing is."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from docai.index.matrix import TermMatrix
from docai.index.scoring import smooth_idf
from docai.records import Chunk
from docai.retrieval.fusion import reciprocal_rank_fusion, top
from docai.retrieval.params import DEFAULT_PARAMS
from docai.retrieval.search_index import SearchIndex
from docai.text.analysis import chunk_terms, default_analyzer
from tests.retrieval.matrices import matrix_of, stacked, with_unused_terms

DOCS = {
    "paths.md": [
        ("Paths", "Use os.path.join to build a path from its parts on any system."),
        ("Paths > Home", "The home folder is ~ and os.path.expanduser resolves it."),
    ],
    "community.md": [
        ("Community", "Join us! To join the forum, join the mailing list and join the chat."),
    ],
    "config.md": [
        ("Configuração", "A configuração do proxy fica no arquivo ~/.gitconfig do usuário."),
        ("Contexto", "Defina num_ctx como 8192 para uma janela de contexto maior."),
    ],
    "install.md": [
        ("Install", "Install docai with pip install docai, then run docai --docs DIR."),
    ],
}


def _chunks(docs: dict[str, list[tuple[str, str]]]) -> list[Chunk]:
    chunks = []
    for source, sections in docs.items():
        for ordinal, (heading, body) in enumerate(sections):
            path = tuple(heading.split(" > "))
            text = f"{heading}\n{body}"
            chunks.append(Chunk(source, path, ordinal, text, len(text.split())))
    return chunks


def _index(docs=DOCS, method="hybrid", **changes) -> SearchIndex:
    """The index of `docs`, with `changes` to the default `RetrievalParams`."""
    chunks = _chunks(docs)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    return SearchIndex(chunks, matrix, method, params=replace(DEFAULT_PARAMS, **changes))


def _where(hits) -> list[tuple[str, int]]:
    return [(hit.chunk.source, hit.chunk.ordinal) for hit in hits]


@pytest.mark.parametrize("method", ["hybrid", "tfidf", "bm25"])
def test_accents_match_both_ways(method):
    unaccented = {"a.md": [("Configuracao", "A configuracao do proxy usa a porta 3128.")]}
    assert _where(_index(method=method).search("configuracao do proxy", 3))[0] == ("config.md", 0)
    assert _where(_index(unaccented, method).search("Configuração", 3)) == [("a.md", 0)]


@pytest.mark.parametrize("method", ["hybrid", "tfidf", "bm25"])
def test_identifier_found_by_part_and_ranked_first_when_spelled_whole(method):
    index = _index(method=method)
    assert ("paths.md", 0) in _where(index.search("join", 3, min_coverage=0.0))
    assert _where(index.search("os.path.join", 3))[0] == ("paths.md", 0)
    assert _where(index.search("como uso os.path.join?", 3))[0] == ("paths.md", 0)
    assert _where(index.search("num_ctx", 3))[0] == ("config.md", 1)


@pytest.mark.parametrize("question", ["o que é isso?", "what is it?", "xyzzy plugh", ""])
def test_question_without_known_terms_finds_nothing(question):
    index = _index()
    assert index.search(question, 3, min_coverage=0.0) == []
    assert index.best_file(question)[0] is None


@pytest.mark.parametrize("method", ["hybrid", "tfidf", "bm25"])
def test_the_bar_refuses_a_question_whose_subject_the_docs_never_mention(method):
    index = _index(method=method)
    assert _where(index.search("Where is the proxy configured?", 1)) == [("config.md", 0)]
    # "Netlify" is a name no passage knows: sharing "proxy" is not enough.
    assert index.search("How do I put the proxy on Netlify?", 3) == []
    assert index.search("How do I put the proxy on Netlify?", 3, min_coverage=0.0) != []
    assert index.search("proxy", 3, min_coverage=1.01) == []


def test_tfidf_score_is_the_textbook_cosine():
    chunks = _chunks(DOCS)
    term_lists = [chunk_terms(c) for c in chunks]
    index = SearchIndex(chunks, matrix_of(term_lists), "tfidf")
    question = "Como configurar o proxy e a janela de contexto no arquivo?"
    n = len(term_lists)
    df = Counter(term for terms in term_lists for term in set(terms))

    def vector(counts: Counter) -> dict[str, float]:
        raw = {t: (1 + math.log(c)) * (math.log((1 + n) / (1 + df[t])) + 1)
               for t, c in counts.items() if t in df}
        norm = math.sqrt(sum(v * v for v in raw.values()))
        return {t: v / norm for t, v in raw.items()}

    query = vector(Counter(default_analyzer().query_terms(question)))
    expected = {}
    for chunk, terms in zip(chunks, term_lists, strict=True):
        document = vector(Counter(terms))
        cosine = sum(w * document.get(t, 0.0) for t, w in query.items())
        if cosine > 0:
            expected[(chunk.source, chunk.ordinal)] = cosine
    hits = index.search(question, len(chunks), min_coverage=0.0)
    assert {key: pytest.approx(value) for key, value in expected.items()} == {
        (h.chunk.source, h.chunk.ordinal): h.score for h in hits
    }
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_bm25_matches_a_hand_computed_value():
    chunks = [Chunk("t.md", (), i, f"chunk {i}", 2) for i in range(3)]
    matrix = matrix_of([["alpha", "kernel"], ["alpha", "alpha", "timeout"],
                                         ["kernel"]])
    n, df, average_length = 3, 2, 2.0
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))

    def bm25(tf, length, k1, b):
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average_length))

    hits = SearchIndex(chunks, matrix, "bm25").search("alpha", 3, min_coverage=0.0)
    assert _where(hits) == [("t.md", 1), ("t.md", 0)]
    assert [h.score for h in hits] == pytest.approx([bm25(2, 3, 1.2, 0.5), bm25(1, 2, 1.2, 0.5)])
    params = replace(DEFAULT_PARAMS, bm25_k1=1.5, bm25_b=0.5)
    tuned = SearchIndex(chunks, matrix, "bm25", params=params).search("alpha", 3, min_coverage=0.0)
    assert [h.score for h in tuned] == pytest.approx([bm25(2, 3, 1.5, 0.5), bm25(1, 2, 1.5, 0.5)])


def test_reciprocal_rank_fusion_rewards_agreement():
    ids, scores = reciprocal_rank_fusion(
        [np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([3])], tiebreak=np.arange(4), k=60
    )
    assert ids.tolist() == [1, 0, 2, 3]
    assert scores[0] == pytest.approx(1 / 62 + 1 / 61)
    tied, _ = reciprocal_rank_fusion([np.array([2]), np.array([1])], tiebreak=np.array([0, 1, 0]),
                                     k=60)
    assert tied.tolist() == [2, 1]


def test_hybrid_order_is_the_fusion_of_tfidf_and_bm25_orders():
    question = "install docai and join the path with os.path.join in the proxy configuration"
    off = {"duplicate_similarity": None}
    by_method = {m: _where(_index(method=m, **off).search(question, 20, min_coverage=0.0))
                 for m in ("tfidf", "bm25", "hybrid")}
    rank = {m: {key: r for r, key in enumerate(by_method[m], start=1)} for m in by_method}
    tfidf_weight, bm25_weight = DEFAULT_PARAMS.hybrid_weights
    k = DEFAULT_PARAMS.rrf_k
    fused = {key: tfidf_weight / (k + rank["tfidf"][key]) + bm25_weight / (k + rank["bm25"][key])
             for key in by_method["tfidf"]}
    assert by_method["hybrid"] == sorted(fused, key=lambda key: (-fused[key], key))


@pytest.mark.parametrize("method", ["hybrid", "tfidf", "bm25"])
def test_ties_are_broken_by_source_then_ordinal(method):
    same = ("Cache", "The cache lives in the user cache folder.")
    docs = {"b.md": [same, same], "a.md": [same]}
    hits = _index(docs, method, duplicate_similarity=None).search("cache", 3)
    assert _where(hits) == [("a.md", 0), ("b.md", 0), ("b.md", 1)]
    if method != "hybrid":  # fused scores come from ranks, which the tie-break has ordered
        assert len({h.score for h in hits}) == 1


def test_copies_of_a_passage_do_not_fill_the_top_hits():
    copy = ("Cache", "The cache lives in the user cache folder, one per docs folder.")
    other = ("Cache > Clear", "Delete the cache folder or run docai index --rebuild.")
    docs = {"a.md": [copy], "b.md": [copy], "c.md": [copy, other]}
    assert _where(_index(docs).search("cache folder", 2)) == [("a.md", 0), ("c.md", 1)]
    kept = _index(docs, duplicate_similarity=None).search("cache folder", 2)
    assert _where(kept) == [("a.md", 0), ("b.md", 0)]


def test_best_source_is_the_file_sharing_most_question_terms():
    docs = {
        "a.md": [("Proxy", "proxy proxy proxy proxy")],
        "b.md": [("Rede", "Set the proxy here."), ("Limits", "The timeout and the retries.")],
    }
    index = _index(docs)
    assert index.best_file("proxy timeout retries")[0] == "b.md"
    assert index.best_file("proxy")[0] == "a.md"
    assert index.search("proxy timeout retries", 3, min_coverage=1.01) == []
    assert index.best_file("proxy timeout retries")[0] == "b.md"


def _per_file(docs) -> dict[str, TermMatrix]:
    return {source: matrix_of([chunk_terms(c) for c in _chunks({source: s})])
            for source, s in docs.items()}


def _same_matrix(left: TermMatrix, right: TermMatrix) -> None:
    assert left.vocabulary == right.vocabulary
    assert left.counts.dtype == right.counts.dtype == np.int32
    assert left.counts.shape == right.counts.shape
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(left.counts, name), getattr(right.counts, name))


def _results(index: SearchIndex) -> list:
    questions = ["proxy", "os.path.join", "install docai", "configuração do contexto", "join us"]
    return [[(h.chunk, h.score) for h in index.search(q, 5, min_coverage=0.0)] for q in questions]


def test_stacked_parts_search_exactly_like_a_full_build():
    parts = _per_file(DOCS)
    chunks = _chunks(DOCS)
    whole = matrix_of([chunk_terms(c) for c in chunks])
    merged = stacked(list(parts.values()))
    _same_matrix(merged, whole)
    full, incremental = SearchIndex(chunks, whole), SearchIndex(chunks, merged)
    assert _results(incremental) == _results(full)
    assert incremental.fingerprint == full.fingerprint


def test_removing_a_file_searches_exactly_like_a_fresh_build():
    remaining = {s: v for s, v in DOCS.items() if s != "paths.md"}
    chunks = _chunks(remaining)
    fresh = SearchIndex(chunks, matrix_of([chunk_terms(c) for c in chunks]))
    parts = _per_file(DOCS)
    merged = stacked([parts[s] for s in remaining])
    # A cache may keep the removed file's vocabulary: terms no chunk uses any more.
    stale = with_unused_terms(merged, parts["paths.md"].vocabulary)
    assert len(stale.vocabulary) > len(merged.vocabulary)
    for matrix in (merged, stale):
        rebuilt = SearchIndex(chunks, matrix)
        assert _results(rebuilt) == _results(fresh)
        assert rebuilt.fingerprint == fresh.fingerprint
    assert fresh.search("expanduser", 3, min_coverage=0.0) == []


def test_fingerprint_changes_with_content():
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    edited = [*chunks[:-1], Chunk(chunks[-1].source, chunks[-1].heading_path,
                                  chunks[-1].ordinal, chunks[-1].text + " Agora.", 9)]
    edited_matrix = matrix_of([chunk_terms(c) for c in edited])
    fingerprints = {
        SearchIndex(chunks, matrix).fingerprint,
        SearchIndex(edited, edited_matrix).fingerprint,
        SearchIndex(chunks[:-1], stacked(
            [matrix_of([chunk_terms(c) for c in chunks[:-1]])])).fingerprint,
    }
    assert len(fingerprints) == 3
    assert SearchIndex(chunks, matrix).fingerprint == SearchIndex(chunks, matrix).fingerprint


def test_k_limits_hits_and_index_exposes_its_chunks():
    index = _index()
    assert len(index) == len(index.chunks) == len(_chunks(DOCS))
    assert len(index.search("docai join proxy path", 2, min_coverage=0.0)) == 2
    assert index.search("proxy", 0) == []


def test_empty_index_finds_nothing():
    index = SearchIndex([], matrix_of([]))
    assert len(index) == 0
    assert index.search("proxy", 3) == []
    assert index.best_file("proxy")[0] is None


def test_top_breaks_ties_at_the_cut_deterministically():
    scores = np.array([1.0, 2.0, 2.0, 2.0, 0.5])
    tiebreak = np.array([0, 4, 3, 1, 2])
    assert top(np.arange(5), scores, tiebreak, 2).tolist() == [3, 2]


def test_stale_vocabulary_in_another_column_order_changes_nothing():
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    order = np.arange(len(matrix.vocabulary))[::-1]
    shuffled = TermMatrix(tuple(matrix.vocabulary[j] for j in order) + ("unused-term",),
                          sp.hstack([matrix.counts.to_scipy()[:, order],
                                     sp.csr_matrix((len(chunks), 1), dtype=np.int32)]).tocsr())
    original, reordered = SearchIndex(chunks, matrix), SearchIndex(chunks, shuffled)
    assert _results(reordered) == _results(original)
    assert reordered.fingerprint == original.fingerprint


def test_a_stored_idf_scores_exactly_like_the_computed_one():
    """What a warm start does: the idf saved with the counts instead of scikit-learn's fit."""
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    for method in ("tfidf", "hybrid"):
        computed = SearchIndex(chunks, matrix, method)
        stored = SearchIndex(chunks, matrix, method, idf=smooth_idf(matrix.counts))
        assert _results(stored) == _results(computed)
        assert stored.fingerprint == computed.fingerprint


def test_a_given_idf_is_used_as_is_for_a_canonical_matrix():
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    flat = SearchIndex(chunks, matrix, "tfidf", idf=np.ones(len(matrix.vocabulary)))
    assert _results(flat) != _results(SearchIndex(chunks, matrix, "tfidf"))


def test_a_given_idf_is_recomputed_when_the_columns_are_rearranged():
    """The idf of a non-canonical matrix would no longer line up with its prepared columns."""
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    order = np.arange(len(matrix.vocabulary))[::-1]
    reversed_matrix = TermMatrix(tuple(matrix.vocabulary[j] for j in order),
                                 matrix.counts.to_scipy()[:, order].tocsr())
    given = SearchIndex(chunks, reversed_matrix, "tfidf",
                        idf=smooth_idf(reversed_matrix.counts))
    assert _results(given) == _results(SearchIndex(chunks, matrix, "tfidf"))


def test_a_given_idf_of_another_length_is_refused():
    chunks = _chunks(DOCS)
    matrix = matrix_of([chunk_terms(c) for c in chunks])
    with pytest.raises(ValueError, match="idf"):
        SearchIndex(chunks, matrix, idf=np.ones(len(matrix.vocabulary) - 1))
