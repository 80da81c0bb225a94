"""The strings of a question's size check (docai/question_limit.py), shared by every entry point. pt-BR; see `docai.messages`."""

from __future__ import annotations

QUESTION_TOO_LONG = (
    "a pergunta tem {size} caracteres; o limite é {limit}. Resuma a pergunta ou cole só o "
    "trecho que importa (um log longo: as linhas do erro)"
)
