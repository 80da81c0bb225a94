"""Candidate dictionary forms of Portuguese inflected words (folded, as analysis sees them)."""

from __future__ import annotations

import pytest

from docai.text.inflection import infinitives, singulars


@pytest.mark.parametrize(
    ("form", "infinitive"),
    [
        ("configuro", "configurar"), ("usa", "usar"), ("abro", "abrir"),
        ("mantenho", "manter"), ("protejo", "proteger"), ("restrinjo", "restringir"),
        ("corrijo", "corrigir"), ("leio", "ler"), ("peco", "pedir"), ("vejo", "ver"),
        ("descubro", "descobrir"), ("confiro", "conferir"), ("sigo", "seguir"),
        ("desfaco", "desfazer"), ("instalamos", "instalar"),
    ],
)
def test_a_present_tense_form_proposes_its_infinitive(form, infinitive):
    assert infinitive in infinitives(form)


def test_short_words_and_infinitives_propose_nothing_odd():
    assert infinitives("a") == () and infinitives("ma") == ()
    assert "abrir" not in infinitives("abrir")


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("comandos", "comando"), ("erros", "erro"), ("itens", "item"), ("papeis", "papel"),
     ("possiveis", "possivel"), ("flores", "flor"), ("luzes", "luz"), ("anais", "anal")],
)
def test_a_plural_proposes_its_singular(plural, singular):
    assert singular in singulars(plural)


def test_an_english_plural_after_a_consonant_proposes_no_singular():
    # A Portuguese noun never ends in t or k: "limits" is not a plural of "limit".
    assert singulars("limits") == () and singulars("hooks") == ()
