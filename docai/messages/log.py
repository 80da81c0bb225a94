"""The log of exchanges and the sessions built on it: `docai log`, `docai -c`, `/sessoes`,
`/retomar`, `/salvar`, `--no-log`. pt-BR; see `docai.messages`."""

from __future__ import annotations

# --- the log file (docai/log/store.py, docai/cli/session_log.py) ---------------------------
LOG_UNAVAILABLE = "registro de conversas {path} inutilizável: {reason}"
LOG_NEWER_SCHEMA = "gravado por um docai mais novo (esquema {version}); atualize o docai"
LOG_LOCKED = "registro de conversas {path} em uso por outro programa (trancado)"
LOG_UNWRITABLE = "o registro de conversas {path} não pode ser gravado agora: {reason}"
LOG_WARNING_UNWRITABLE = (
    "aviso: {problem}. O registro está intacto e segue legível (/sessoes, /retomar), mas "
    "esta conversa não será gravada; libere espaço no disco ou use --no-log."
)
SESSIONS_LOG_FAILED = "O registro não pôde ser aberto nesta sessão (veja o aviso do início): não há conversas para listar."
LOG_WARNING = (
    "aviso: {problem}. A conversa segue sem registro; se o arquivo estiver danificado, "
    "mova-o para outro lugar (um novo será criado), ou use --no-log."
)
LOG_WARNING_LOCKED = (
    "aviso: {problem}. A conversa segue sem registro; feche o programa que o usa "
    "(um docai travado, um visualizador de SQLite) para voltar a registrar, ou use --no-log."
)
LOG_READ_FAILED = (
    "{problem}; se o arquivo estiver danificado, mova-o para outro lugar (um novo será "
    "criado na próxima pergunta)"
)
LOG_READ_LOCKED = "{problem}; tente de novo quando o outro programa o soltar"
LOG_READ_UNWRITABLE = "{problem}"
ARGS_SYSTEM_HELP = (
    "instruções suas para o modelo (ex.: \"responda em tópicos\"), somadas às do docai, "
    "que continuam valendo: responder só com as fontes e citá-las"
)
ARGS_NO_LOG_HELP = "não grava as perguntas e respostas no registro (ou log = false no config.toml)"

# --- `docai log` (docai/cli/commands/log.py) -------------------------------------------------
LOG_COMMAND_HELP = "mostra as últimas perguntas e respostas registradas"
LOG_COMMAND_DESCRIPTION = (
    "Mostra as últimas perguntas e respostas do registro de conversas, com as fontes, o "
    "modelo e a pasta de documentos de cada uma (todas as pastas; com --docs, só a dela)."
)
LOG_LIMIT_HELP = "quantas mostrar (padrão: {default}; 0 mostra todas)"
LOG_SEARCH_HELP = "só as que contêm todas estas palavras (na pergunta ou na resposta)"
LOG_BAD_LIMIT = "-n deve ser 0 (todas) ou mais, recebi {value}"
LOG_RENAME_HELP = "dá um nome à conversa N (o número que docai log e /sessoes mostram)"
LOG_DELETE_HELP = "apaga estas conversas do registro, com todas as perguntas e respostas"
LOG_CLEAR_HELP = "apaga o registro inteiro (todas as conversas de todas as pastas)"
LOG_YES_HELP = "não pergunta antes de apagar (para scripts)"
LOG_CONVERSATION_HEADER = "── conversa #{session}{name} ──"
LOG_NO_SUCH_CONVERSATION = "não há conversa #{number} no registro; veja os números com docai log"
LOG_RENAMED = "A conversa #{number} agora se chama «{name}»."
LOG_CONFIRM_DELETE = "Apagar {what} do registro, para sempre? [s/N] "
LOG_WHAT_CONVERSATIONS = "{count} conversa(s) ({exchanges} pergunta(s))"
LOG_WHAT_ALL = "o registro inteiro ({exchanges} pergunta(s) de todas as pastas)"
LOG_NEEDS_YES = "apagar pede confirmação: rode num terminal, ou acrescente --yes"
LOG_KEPT = "Nada apagado."
LOG_DELETED = "Apagadas {count} pergunta(s) do registro."
LOG_EMPTY = "O registro está vazio: as perguntas feitas no docai aparecem aqui."
LOG_EMPTY_FOR_DOCS = (
    "Nada no registro sobre {docs}; sem --docs, docai log mostra as de todas as pastas."
)
LOG_NOTHING_FOUND = "Nada no registro com: {words}."
LOG_OFF_NOTE = "(o registro está desligado: log = false em {path})"
LOG_ENTRY_HEADER = "#{id}  {time}  {docs}  {model}{status}"
LOG_QUESTION = "  P: {text}"
LOG_ANSWER = "  R: {text}"
LOG_SOURCES = "  Fontes: {sources}"
LOG_STATUS = {
    "answered": "",
    "interrupted": "  (interrompida)",
    "failed": "  (o modelo falhou)",
    "not_covered": "  (a documentação não cobre)",
}
LOG_NO_ANSWER = "(sem resposta)"

# --- resuming (docai/cli/sessions.py) -------------------------------------------------------
ARGS_CONTINUE_HELP = "retoma a última conversa desta pasta de documentos (modo interativo)"
CONTINUE_ONLY_INTERACTIVE = "--continuar/-c e --retomar/-r valem para o modo interativo e para ask, não para {command}"
ARGS_RESUME_HELP = "retoma a conversa número N (o #N de /sessoes e de docai log)"
ARGS_ASK_CONTINUE_HELP = "pergunta dentro da última conversa desta pasta (o modelo recebe as perguntas anteriores)"
ARGS_ASK_RESUME_HELP = "pergunta dentro da conversa número N (o #N de /sessoes e de docai log)"
CONTINUE_AND_RESUME = "use -c (a última conversa) ou -r N (a conversa N), não os dois"
RESUME_NOT_FOUND = "não há conversa #{number} com {docs} no registro (docai log mostra os números)"
CONTINUE_NOTHING = "Nenhuma conversa anterior com {docs}; começando uma nova."
CONTINUE_LOG_OFF = "O registro está desligado (--no-log ou log = false): não há conversa para retomar."
RESUMED = "Retomando a conversa de {time} ({count} pergunta(s)); a última: {question}"
SESSIONS_HEADER = "Conversas com esta pasta (a mais recente primeiro):"
SESSIONS_ROW = "  #{number:<4} {time}  {count:>3} pergunta(s)  {question}"
SESSIONS_NAMED = "«{name}»"
SESSIONS_USAGE = "use /sessoes (lista), /sessoes nomear N NOME ou /sessoes apagar N"
SESSIONS_BAD_NUMBER = "não há conversa #{value} com esta pasta; veja os números com /sessoes"
SESSIONS_RENAMED = "A conversa #{number} agora se chama {name}."
SESSIONS_CONFIRM_DELETE = "Apagar a conversa #{number} ({count} pergunta(s): {question}) do registro, para sempre? Confirme com /sessoes apagar {number} sim"
SESSIONS_DELETED = "Conversa #{number} apagada do registro ({count} pergunta(s))."
SESSIONS_CURRENT = "  (esta)"
SESSIONS_FOOTER = "Retome uma com /retomar N; /sessoes nomear N NOME dá um nome; /sessoes apagar N a apaga."
SESSIONS_NONE = "Ainda não há conversas registradas com esta pasta."
SESSIONS_LOG_OFF = "O registro está desligado nesta sessão: não há conversas para listar."
RESUME_USAGE = "use /retomar N, com o número #N que /sessoes mostra (ex.: /retomar 3)"
RESUME_BAD_NUMBER = "/retomar precisa do número de uma conversa desta pasta, como /sessoes os mostra; recebi {value!r}"
REPL_HELP_SESSIONS = "lista as conversas com esta pasta (nomear N NOME, apagar N)"
REPL_HELP_RESUME = "retoma a conversa #N de /sessoes"

# --- /salvar (docai/cli/transcript.py) -------------------------------------------------------
REPL_HELP_SAVE = "grava a conversa em Markdown, com as fontes"
SAVE_USAGE = "use /salvar ARQUIVO.md (ex.: /salvar conversa.md)"
SAVE_NOTHING = "Nada para salvar: faça uma pergunta primeiro."
SAVE_EXISTS = (
    "{path} já existe e não foi gravado pelo docai: não o sobrescrevo. Escolha outro nome."
)
SAVE_FAILED = "não consegui gravar {path}: {reason}. Escolha outro caminho (ex.: /salvar ~/conversa.md)."
SAVED = "Conversa gravada em {path} ({count} pergunta(s))."
SAVED_IN_DOCS = (
    "aviso: o arquivo fica dentro da pasta de documentos; o docai não o indexa (conversas "
    "gravadas não são documentação), mas outras ferramentas podem indexar"
)
TRANSCRIPT_COLLECTION = "a coleção {collection} do índice compartilhado"
TRANSCRIPT_TITLE = "# Conversa com o docai sobre {docs}"
TRANSCRIPT_SAVED_AT = "_Gravada em {time}; modelo {model}._"
TRANSCRIPT_SOURCES = "Fontes:"
TRANSCRIPT_NO_ANSWER = "_(sem resposta do modelo)_"
