"""Candidate infinitives of Portuguese verb forms (folded, as analysis sees them)."""

from __future__ import annotations

import pytest

from docai.conjugation import infinitives


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
