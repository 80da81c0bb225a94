"""Telling a follow-up from a question that stands alone, in both languages."""

from __future__ import annotations

import pytest

from docai.answer.dependence import depends_on_conversation


@pytest.mark.parametrize("question", [
    "e o número de workers?",  # a connective continuing the last question
    "E se a variável tiver vários valores?",
    "And arguments?",
    "What about Windows?",
    "e como eu apago ele?",  # a pronoun pointing back
    "dá pra mudar isso sem reiniciar?",
    "How do I show it in French?",
    "Is plain print just as good there?",
    "ele?",  # no word of its own
    "Qual é o valor padrão dele?",  # words of its own, but not what "dele" is
])
def test_a_question_that_leans_on_the_conversation_depends_on_it(question: str) -> None:
    assert depends_on_conversation(question)


@pytest.mark.parametrize("question", [
    "Quantas cópias de backup são mantidas?",
    "How do I change my password?",
    "Is there a way to run two workers?",  # "there" points at nothing here
    "Is it possible to change the port?",
    "Como está o servidor?",  # "está" is a verb, not the demonstrative "esta"
    "Everything that docai reads: which formats?",  # "that" as a relative pronoun
    # the pronoun's antecedent is in the question itself
    "The importer crashed halfway through my large upload; can it pick up where it stopped?",
    "Meu notebook Debian perde a conexão Wi-Fi toda noite; como faço ele reconectar sozinho?",
])
def test_a_question_that_stands_alone_does_not(question: str) -> None:
    assert not depends_on_conversation(question)
