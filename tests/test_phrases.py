"""Multi-word names found in questions."""

from __future__ import annotations

import pytest

from docai.phrases import fold_text, multiword_names


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I make VS Code's integrated terminal open fish?", ("vs code",)),
        ("Como faço deploy de uma aplicação Flask no AWS Lambda?", ("aws lambda",)),
        ("O Borg faz backup do meu Google Drive? E do Amazon S3?", ("google drive", "amazon s3")),
        # A stop word or punctuation ends a name; one capitalised word is no multi-word name.
        ("Does it work with Read the Docs?", ()),
        ("I use Flask. Sphinx too.", ()),
        # In Title Case every word is capitalised: no names can be told apart.
        ("How To Deploy To Netlify With Hugo", ()),
    ],
)
def test_runs_of_capitalised_words_are_names(question, names):
    assert multiword_names(question) == names


def test_names_and_texts_fold_alike():
    assert multiword_names("Quero usar o Código Aberto aqui") == ("codigo aberto",)
    assert "codigo aberto" in fold_text("Um projeto de  Código\nAberto.")
