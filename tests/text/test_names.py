"""Multi-word names found in questions, and found in text."""

from __future__ import annotations

import numpy as np
import pytest

from docai.index.chunk_table import Strings
from docai.text.names import multiword_names, name_pattern


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I make VS Code's integrated terminal open fish?", (("VS", "Code"),)),
        ("Como faço deploy de uma aplicação Flask no AWS Lambda?", (("AWS", "Lambda"),)),
        ('Faz backup do "Google Drive" ou do (Amazon S3)?',
         (("Google", "Drive"), ("Amazon", "S3"))),
        # A stop word, punctuation or a possessive ends a name; one capital is no name.
        ("Does it work with Read the Docs?", ()),
        ("I use Flask. Sphinx too.", ()),
        ("Can I use Flask's Jinja environment to add filters?", ()),
        ("Como uso o Flask Não?", ()),
        # A sentence's first word is capitalised anyway.
        ("Configure Sphinx so that the output uses a custom theme, how?", ()),
        ("It builds. Google Drive works too?", ()),
        # In Title Case every word is capitalised, stop words too: no name stands out.
        ("How To Use Flask Blueprints In My Project", ()),
    ],
)
def test_runs_of_capitalised_words_are_names(question, names):
    assert multiword_names(question) == names


def test_a_name_is_found_as_whole_words_in_any_case_spacing_and_accents():
    texts = Strings.of(["Use the VS Code terminal.", "vs\n code's", "VS Codes",
                        "Código  Aberto", "codigo aberto", "the code of VS"])
    rows = np.arange(len(texts))
    assert texts.matching(name_pattern(("VS", "Code")), rows).tolist() == [0, 1]
    assert texts.matching(name_pattern(("Codigo", "Aberto")), rows).tolist() == [3, 4]
    assert texts.matching(name_pattern(("VS", "Code")), rows[2:]).tolist() == []
