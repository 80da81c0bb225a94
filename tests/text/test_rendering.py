"""A question's words rendered in the docs' language: what a bridged question is also
ranked and embedded with (`docai.text.rendering`)."""

from __future__ import annotations

import pytest

from docai.text.language import ENGLISH, PORTUGUESE
from docai.text.rendering import render


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # Each word by its own entry, though Snowball stems it as another entry's word
        # ("variáveis" and "vários": vari; "conto" and "conta": cont).
        ("Como leio os valores das opções a partir de variáveis de ambiente?",
         "variable environment"),
        ("Como conto quantas vezes o -v foi passado?", "count -v"),
        ("Como registrar um comando novo?", "register command new"),
        # Inflected forms still found through their dictionary form or stem.
        ("Onde ficam as pastas de configuração?", "folder configuration"),
    ],
)
def test_a_portuguese_word_is_rendered_by_its_own_entry(question: str, expected: str) -> None:
    rendered = render(question, ENGLISH)
    assert rendered is not None
    assert expected in rendered


def test_names_stay_and_stop_words_are_left_out() -> None:
    assert render("Como instalo o Flask no Windows?", ENGLISH) == "install flask windows"


def test_a_question_with_no_rendered_word_has_no_rendering() -> None:
    assert render("docai Flask", ENGLISH) is None


def test_an_english_question_is_rendered_in_portuguese() -> None:
    rendered = render("How do I mount a partition?", PORTUGUESE)
    assert rendered is not None
    assert "particao" in rendered
