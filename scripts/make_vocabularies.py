"""Write docai/data/vocabulary_pt.npy and vocabulary_en.npy: every Portuguese and English
word form (inflections included), folded (no accents, lower case), as a sorted array of
32-bit hashes (`docai.text.vocabulary.word_hash`).

`docai.text.vocabulary.known_word` asks whether a lower-case question word the collection
lacks is a word of the question's language at all, or a name ("kubernetes"). The forms are
simplemma's (MIT licence, Adrien Barbaresi; its dictionaries come from Wiktionary-based
lemma lists): 0.85 million Portuguese and 0.17 million English forms. As hashes they load in
milliseconds and take a few megabytes (simplemma's own dictionaries take seconds to load,
and the forms as text 10 MB); two forms share a hash about once in 5,000 lookups of an
unknown word, which then counts as a word, as every word did before names were looked up.
simplemma is needed only to run this script (`pip install simplemma==2.0.0`), not by docai.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from docai.text.tokenise import fold_marks
from docai.text.vocabulary import word_hash

DATA = Path(__file__).resolve().parent.parent / "docai" / "data"


def forms(code: str) -> set[str]:
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    dictionary = DefaultDictionaryFactory().get_dictionary(code)
    found = set()
    for pair in dictionary.items():
        for value in pair:
            word = value.decode() if isinstance(value, bytes) else str(value)
            if word.isalpha() and word.islower() and len(word) <= 30:
                found.add(fold_marks(word).casefold())
    return found


def main() -> int:
    for code in ("pt", "en"):
        target = DATA / f"vocabulary_{code}.npy"
        words = forms(code)
        hashes = np.unique(np.array([word_hash(w) for w in words], dtype=np.uint32))
        with open(target, "wb") as handle:
            np.save(handle, hashes, allow_pickle=False)
        print(f"wrote {target} ({len(words)} forms, {len(hashes)} hashes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
