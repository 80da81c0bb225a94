"""Every user-facing string, in Portuguese (pt-BR), so wording changes touch one file.

Helpers format with str.format(**fields). Keep one section per area; append new strings
to the section of your area.
"""

from __future__ import annotations

# --- general / CLI -------------------------------------------------------------------------
ERROR_PREFIX = "docai: erro: {message}"
INTERRUPTED = "Interrompido."
BAD_CHUNK_SIZE = (
    "o tamanho do trecho deve ser um número positivo de tokens, recebi {value} "
    "(tente --chunk-tokens 512)"
)
BAD_CHUNK_OVERLAP = (
    "a sobreposição deve ficar entre 0 e {limit} (tamanho do trecho menos um), recebi {value} "
    "(tente --chunk-overlap 48)"
)
BAD_TOP_K = "-k/--top-k deve ser pelo menos 1, recebi {value}"
BAD_NUM_CTX = "--num-ctx deve ser pelo menos 512 tokens, recebi {value}"
BAD_CHOICE = "{option} deve ser {choices}, recebi {value!r}"
DOCS_MISSING = (
    "a pasta de documentos {path} não existe. Indique outra com --docs PASTA "
    "(ex.: docai --docs ~/meus-docs)"
)
DOCS_NOT_A_DIR = "{path} não é uma pasta. Use --docs com uma pasta de arquivos .md/.html/.txt"
DOCS_UNREADABLE = "não consigo ler a pasta {path}: {reason}"
