"""Answering's strings: passages, fallbacks, refusals, warnings. pt-BR; see `docai.messages`."""

from __future__ import annotations

# --- answering and `docai ask` (docai/answer/, docai/cli/render.py, docai/cli/commands/ask.py) ---
ANSWER_PASSAGES_TRIMMED = (
    "{count} de {total} trecho(s) foram cortados ou deixados de fora para caber na janela de "
    "contexto ({num_ctx} tokens); aumente --num-ctx ou diminua -k"
)
ANSWER_QUESTION_TRUNCATED = (
    "a pergunta é longa demais para a janela de contexto ({num_ctx} tokens): o meio dela foi "
    "cortado para sobrar espaço para os trechos; encurte a pergunta ou aumente --num-ctx"
)
ANSWER_PROMPT_TRUNCATED = (
    "o servidor leu só {seen} dos ~{sent} tokens enviados: o prompt provavelmente foi cortado "
    "e a resposta pode ignorar parte das fontes. Aumente --num-ctx (agora {num_ctx}) ou "
    "diminua -k"
)
ANSWER_THINKING_OFF = (
    "o modelo {model} não tem modo de raciocínio; seguindo sem ele nesta sessão"
)
ANSWER_FALLBACK = (
    "(nenhum trecho foi relevante o bastante; respondendo a partir do arquivo {source})"
)
ANSWER_NOT_COVERED = (
    "Não encontrei nada sobre isso na documentação. Tente outras palavras (os termos que "
    "aparecem nos arquivos) ou indique outra pasta com --docs."
)
ANSWER_NOT_COVERED_EN = (
    "I found nothing about this in the documentation. Try other words (the terms the files "
    "use) or point docai at another folder with --docs."
)
ANSWER_EMPTY = (
    "o modelo terminou sem escrever uma resposta. Pergunte de novo; se ele só raciocinou, "
    "aumente --num-ctx ou use --no-think"
)
ANSWER_CUT = (
    "a resposta foi cortada no limite de {max_tokens} tokens (raciocínio incluído); "
    "aumente com --max-tokens ou /set max_tokens N"
)
ANSWER_CUT_WHILE_THINKING = (
    "o modelo chegou ao limite de {max_tokens} tokens ainda raciocinando, sem escrever a "
    "resposta; aumente com --max-tokens (ou /set max_tokens N) ou use --no-think"
)
ANSWER_FROM_CACHE = "(resposta repetida do cache)"
ANSWER_THINKING = "pensando…"
ANSWER_WAITING = "aguardando o modelo…"
ANSWER_WARNING = "aviso: {message}"
ANSWER_MODEL_FAILED = "docai: o modelo não respondeu: {error}"
ANSWER_MODEL_FAILED_MIDWAY = "docai: a resposta parou no meio: {error}"
ANSWER_EXTRACTIVE_HEADER = "Trechos mais relevantes da documentação (sem o modelo):"
ANSWER_SOURCES_HEADER = "Fontes:"
ANSWER_SOURCE_LINE = "  [{number}] {label}"
ANSWER_FALLBACK_SOURCE = "Fonte: {source} (arquivo inteiro, sem trecho específico)"
ANSWER_INTERRUPTED = "(resposta interrompida)"
ASK_EMPTY_QUESTION = 'a pergunta está vazia; escreva uma, ex.: docai ask "Como instalo o docai?"'
