"""A small docs folder where a follow-up's bare words point at the wrong passage.

"e como eu apago?" alone is about the question history (the passage that says "apagar"
most); asked after "Onde fica o índice do docai?" it is about the index. Used by the
conversation tests of `tests/answer` and `tests/cli`.
"""

from __future__ import annotations

DOCS = {
    "indice.md": (
        "# Índice\n\n## Onde fica\n\nO docai guarda o índice na pasta de cache do usuário, "
        "em ~/.cache/docai.\n\n## Limpeza\n\nPara apagar o índice do docai, exclua a pasta "
        "~/.cache/docai; ele é refeito na próxima pergunta.\n"
    ),
    "historico.md": (
        "# Histórico\n\n## Como apagar\n\nComo apagar? Apague o arquivo history: apagar "
        "o histórico apaga as perguntas, e como apagar não muda nada, apague sem medo.\n"
    ),
    "modelo.md": (
        "# Modelo\n\n## Janela de contexto\n\nA opção --num-ctx define a janela de contexto; "
        "o padrão é 8192 tokens.\n"
    ),
}
FIRST = "Onde fica o índice do docai?"
FOLLOWUP = "e como eu apago?"
FOLLOWUP_SECTION = "Índice > Limpeza"  # the passage the follow-up means
BARE_SECTION = "Histórico > Como apagar"  # the passage its bare words find
SWITCH = "Qual é o padrão de --num-ctx?"  # a new subject: its own passage must win
SWITCH_SECTION = "Modelo > Janela de contexto"
