"""The REPL's tools beyond asking: `/copiar`, `/info`, `/set`, `/editar` and multi-line
input. pt-BR; see `docai.messages`."""

from __future__ import annotations

# --- /copiar (docai/cli/clipboard.py) --------------------------------------------------------
REPL_HELP_COPY = "copia a última resposta, com as fontes, para a área de transferência"
COPY_NOTHING = "Nada para copiar: a última pergunta não teve resposta do modelo."
COPY_NO_QUESTION = "Nada para copiar: faça uma pergunta primeiro."
COPY_NO_TERMINAL = "Não há terminal para copiar (a saída não é um terminal)."
COPY_TOO_LONG = (
    "A resposta tem {size} bytes, mais do que os terminais aceitam copiar ({limit}); "
    "grave-a com /salvar ARQUIVO.md."
)
COPIED = (
    "Copiei a última resposta ({chars} caracteres, {sources} fonte(s)) para a área de "
    "transferência pelo terminal (OSC 52; funciona também por SSH). Se nada chegou, o seu "
    "terminal não permite OSC 52."
)
COPIED_IN_TMUX = (
    "Copiei a última resposta ({chars} caracteres, {sources} fonte(s)) para a área de "
    "transferência pelo terminal (OSC 52). Se nada chegou, o tmux está recusando: ponha "
    "`set -g set-clipboard on` no ~/.tmux.conf e rode `tmux source-file ~/.tmux.conf`."
)
COPY_SOURCES = "Fontes:"

# --- /info (docai/cli/info.py) ---------------------------------------------------------------
REPL_HELP_INFO = "mostra tudo o que está em vigor: modelo, pasta, índice, busca, registro"
INFO_MODEL = "  modelo          {model} ({backend} em {url})"
INFO_DOCS = "  documentos      {docs}"
INFO_DOCS_NONE = "  documentos      nenhuma pasta aqui: os trechos vêm do índice compartilhado"
INFO_CACHE = "  índice          {cache}"
INFO_STORE = "  índice          compartilhado: coleção {collection} em {store}"
INFO_INDEX = "  trechos         {chunks} trecho(s) de {files} arquivo(s)"
INFO_RETRIEVAL = "  busca           {method}, k = {k}, cobertura mínima {coverage:g}"
INFO_DENSE = "  por significado {embedder}; {embedded} de {chunks} trecho(s) com embeddings ({percent}%)"
INFO_DENSE_OFF = "  por significado desligada (--dense off)"
INFO_DENSE_FAILED = "  por significado desligada nesta sessão (o modelo de embeddings falhou)"
INFO_CONTEXT = "  num_ctx         {num_ctx} tokens; temperatura {temperature:g}; respostas até {max_tokens} tokens"
INFO_THINKING = "  raciocínio      {requested}; {shown} (/pensamento)"
INFO_THINKING_ASKED = "pedido ao modelo"
INFO_THINKING_NOT_ASKED = "não pedido (--no-think)"
INFO_THINKING_SERVER = "o servidor decide"
INFO_LOG_ON = "  registro        ligado: {path}"
INFO_LOG_OFF = "  registro        desligado (--no-log ou log = false)"
INFO_LOG_BROKEN = "  registro        indisponível nesta sessão (veja o aviso acima)"
INFO_CONVERSATION = "  conversa        {turns} pergunta(s) até agora"
INFO_SET_HINT = "Mude k, num_ctx, temperature, max_tokens, thinking ou system com /set NOME VALOR."

# --- /set (docai/cli/info.py) ----------------------------------------------------------------
REPL_HELP_SET = "muda k, num_ctx, temperature, max_tokens, thinking ou system (ex.: /set temperature 0.7)"
SET_USAGE = "use /set NOME VALOR, com NOME entre {names} (ex.: /set k 5)"
SET_UNKNOWN = "/set não muda {name!r}; nomes: {names}"
SET_UNKNOWN_CLOSE = "/set não muda {name!r}; você quis dizer {match}? (nomes: {names})"
SET_BAD_SWITCH = "/set thinking: use on ou off, recebi {value!r}"
SET_ERROR = "/set {name}: {message}"
SET_DONE = "{name} agora: {value}."

# --- multi-line input and /editar (docai/cli/multiline.py, docai/cli/editor.py) -------------
REPL_CONTINUATION = "...    "
REPL_HELP_EDIT = 'edita a pergunta no $EDITOR (ou Ctrl-X Ctrl-E); """ ou Alt-Enter: várias linhas'
EDIT_NO_EDITOR = (
    "não encontrei um editor: defina VISUAL ou EDITOR (ex.: export EDITOR=nano)"
)
EDIT_FAILED = "o editor {editor!r} não abriu: {reason}"
EDIT_BAD_VARIABLE = (
    "{variable}={value!r} não é uma linha de comando ({reason}); corrija-a "
    "(ex.: export {variable}='code --wait')"
)
EDIT_NEEDS_TERMINAL = "/editar precisa de um terminal: com a entrada redirecionada, escreva a pergunta no arquivo."
EDIT_CANCELLED = "Editor fechado sem pergunta: nada perguntado."
