"""Every tuned number of retrieval and refusal, in one place.

`SearchIndex(..., params=...)` takes them and the verdict reads them off the index, so
`scripts/eval.py` can vary any of them (`dataclasses.replace`, or `--param name=value`)
and print what the change does to every evaluation set. Changing one changes the figures
of `make eval`; docs/evaluation.md records what was measured.

The passage bar (`min_coverage`) and the file bar (`min_file_coverage`) are concept
coverages (`docai.retrieval.coverage`): the share of the question's weight the passages,
or one file, hold, in 0..1.
"""

from __future__ import annotations

from dataclasses import dataclass

# How lexical candidates are ranked (`--retrieval`): RRF of TF-IDF and BM25, or either alone.
METHODS = ("hybrid", "tfidf", "bm25")
DEFAULT_METHOD = "hybrid"


@dataclass(frozen=True)
class RetrievalParams:
    """How chunks are ranked and when a question is refused; `DEFAULT_PARAMS` is docai's."""

    # Ranking.
    # BM25 term-frequency saturation: the textbook (and Lucene) default.
    bm25_k1: float = 1.2
    # BM25 length normalisation, under the textbook 0.75: a long chunk is a long section.
    bm25_b: float = 0.5
    # TF-IDF and BM25 votes in the hybrid fusion: BM25 ranks better; TF-IDF breaks its ties.
    hybrid_weights: tuple[float, float] = (0.25, 1.0)
    # Reciprocal rank fusion's k (Cormack et al., 2009): fuses ranks with no calibration.
    rrf_k: int = 60
    # How deep each lexical ranking goes before fusion and duplicate removal (at least 4 k).
    rank_depth: int = 100
    # Dense re-ranking (`docai.retrieval.dense`): each chunk embedded as windows of about
    # this many characters (heading line + paragraphs), scored by its best window.
    window_chars: int = 600
    # Characters of trailing paragraphs a window repeats from the one before (0: none).
    window_overlap: int = 0
    # How many lexical candidates are embedded (when missing) and re-ranked per question:
    # 30 chosen on the blind sets pooled (docs/evaluation.md, issue 22's sweep).
    dense_candidates: int = 30
    # At most this many missing windows a question embeds before ranking, its best lexical
    # candidates first: a question whose candidates are all new waits about as long as with
    # 20 candidates (about 6 s on a 2-core CPU; make bench), whatever `dense_candidates`. A
    # candidate left without vectors keeps its lexical vote only (asked again, or after the
    # background pass or `docai index`, it has them).
    dense_question_windows: int = 48
    # Until every window of the collection has its vector, what a question embeds (every
    # command's ranking, `open_dense`): the window sharing most of its words of each of its
    # top this many lexical candidates that has none, so a question never waits for more
    # than this many windows. Chosen by cost alone (make bench, bench/first_question.py:
    # later questions within 3x the words-only time), before any set was scored with it.
    dense_fresh_candidates: int = 4
    # RRF k of the re-ranking: small, so the top of each order counts far more than its tail
    # (5 chosen on the blind sets pooled, with the weights below).
    dense_rrf_k: int = 5
    # Lexical and dense votes in the re-ranking: equal, chosen on the blind sets pooled (the
    # earlier 3:1 was chosen on tuned sets, where words look strongest).
    rerank_weights: tuple[float, float] = (1.0, 1.0)
    # Vote of the dense ranking over the whole collection, once every chunk has vectors
    # (0: never): chosen on four blind sets that chose nothing else, every window embedded
    # (docs/evaluation.md): 0.5 raised pooled hit@3 and MRR with refusal unchanged; 1 and 2
    # wrongly refused more covered questions.
    dense_full_weight: float = 0.5
    # The same three votes (lexical, dense re-ranking, whole collection) for a question in
    # another language than its passages (`crosslang`), its words joined by their rendering
    # in the passages' language; None: the votes above. The words are then the surer
    # signal: on docai's guide (the cross-language set these were chosen on) the bundled
    # model ranked Portuguese questions below their words alone, and half as much meaning
    # as words ranked best (docs/evaluation.md).
    crossing_weights: tuple[float, float, float] | None = (1.0, 0.5, 0.5)
    # TF-IDF cosine above which a chunk copies a better hit and is dropped (None: keep all).
    duplicate_similarity: float | None = 0.85
    # A history passage (changelog, release notes: `docai.loading.boilerplate`) among the
    # top `history_depth` of the final ranking has its score multiplied by this (1: never),
    # unless the question asks about versions or changes: a changelog names nearly every
    # option in short entries that outrank the page explaining it. 0.5 in the top 50, the one
    # setting tried: on seven blind sets no question down, setuptools hit@3 +0.02, refusals
    # unchanged (docs/evaluation.md, "Ranking by words").
    history_weight: float = 0.5
    history_depth: int = 50

    # Refusal.
    # Passage bar: the top k passages together must cover this share of the question.
    min_coverage: float = 0.65
    # File bar, above the passage bar: one whole file answers when it covers this much.
    min_file_coverage: float = 0.7
    # An unknown name weighs this many times the rarest term: what is named is what is asked.
    unknown_name_weight: float = 2.0
    # An unknown everyday word weighs this share of the rarest term: it may be the subject.
    unspecific_share: float = 0.15
    # A concept the docs hold but the passages lack weighs this share of its idf: a paraphrase.
    absent_share: float = 0.6
    # The same for an everyday word: paraphrases are made of them, answers rarely hold them.
    absent_everyday_share: float = 0.4
    # A multi-word name with a word in over this share of chunks is not looked up: too common.
    common_name_word_share: float = 0.1
    # With dense re-ranking: passages whose best window is less similar to the question than
    # this are refused even when they cover its words (0: never). Off, as is the rescue
    # below: on the tuned sets multilingual E5's cosines of answered and unanswerable
    # questions overlap (0.82-0.92 both), so any threshold costs as many as it wins.
    dense_refuse_below: float = 0.0
    # ... and passages more similar than this are accepted when they cover at least
    # `dense_accept_coverage` of the question, under the bar (above 1: never).
    dense_accept_above: float = 1.01
    dense_accept_coverage: float = 0.0


DEFAULT_PARAMS = RetrievalParams()
