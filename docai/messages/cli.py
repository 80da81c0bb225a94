"""The terminal layer's strings: every command, options, argparse, `docai search`, the REPL. pt-BR; see `docai.messages`."""

from __future__ import annotations

# --- every command (docai/cli/main.py) -----------------------------------------------------
ERROR_PREFIX = "docai: erro: {message}"
INTERRUPTED = "Interrompido."
UNEXPECTED_ERROR = (
    "docai: erro inesperado ({kind}: {message}). Rode de novo com DOCAI_DEBUG=1 para ver "
    "os detalhes e, por favor, relate o problema."
)

# --- settings and options (docai/settings.py, docai/cli/main.py) ---------------------------
BAD_CHUNK_SIZE = (
    "o tamanho do trecho deve ser de {minimum} a {maximum} tokens, recebi {value} "
    "(tente --chunk-tokens 512)"
)
BAD_CHUNK_OVERLAP = (
    "a sobreposição deve ficar entre 0 e {limit} (tamanho do trecho menos um), recebi {value} "
    "(tente --chunk-overlap 48)"
)
BAD_TOP_K = "-k/--top-k deve ser de 1 a {maximum}, recebi {value} (ex.: -k 5)"
BAD_NUM_CTX = "--num-ctx deve ser de {minimum} a {maximum} tokens, recebi {value} (ex.: --num-ctx 8192)"
BAD_MAX_TOKENS = "--max-tokens deve ser um número inteiro de {minimum} a {maximum} (ex.: 4096), recebi {value}"
BAD_TEMPERATURE = "--temperature deve ser um número de 0 a {maximum:g} (ex.: 0.2), recebi {value}"
BAD_READ_TIMEOUT = "--read-timeout deve ser um número positivo de segundos, recebi {value}"
BAD_MIN_COVERAGE = "--min-coverage é uma cobertura (0 a 1; acima de 1 nenhum trecho passa), recebi {value} (tente --min-coverage 0.6)"
BAD_CHOICE = "{option} deve ser {choices}, recebi {value!r}"
BAD_SERVER_URL = (
    "{option}: endereço inválido {url!r}; use http://HOST:PORTA, ex.: http://127.0.0.1:11434 "
    "(OLLAMA_HOST também aceita HOST:PORTA)"
)
JSON_NOT_SUPPORTED = "--json vale para ask, search, eval, log e status, não para {command}"
STATUS_COMMAND_HELP = "mostra o que o índice da pasta tem: arquivos, ignorados e por quê"
STATUS_COMMAND_DESCRIPTION = "Mostra, sem mudar nada, os arquivos indexados por formato, os trechos, cada arquivo ignorado e o motivo, cada arquivo não lido e o motivo, quantos as regras deixaram de fora, quando o índice foi gravado e se a pasta mudou desde então (--json: o mesmo em JSON)."

# --- argparse's own messages, translated (docai/cli/arguments.py, options.py) --------------
ARGS_USAGE_PREFIX = "uso: "
ARGS_POSITIONALS_TITLE = "argumentos"
ARGS_OPTIONS_TITLE = "opções"
ARGS_HELP = "mostra esta ajuda e sai"
ARGS_VERSION_HELP = "mostra a versão e sai"
ARGS_SEE_HELP = "Veja as opções com `{prog} --help`."
ARGS_ARGUMENT = "{name}: {message}"
ARGS_INVALID_VALUE = "valor inválido {value} (esperava {kind})"
ARGS_TYPE_INT = "um número inteiro"
ARGS_TYPE_FLOAT = "um número, ex.: 0.5"
ARGS_INVALID_CHOICE = "valor inválido {value} (escolha entre {choices})"
ARGS_UNRECOGNIZED = "argumentos não reconhecidos: {arguments}"
ARGS_UNKNOWN_OPTION = "opção desconhecida {option}"
ARGS_OPTION_NOT_TOGETHER = "{option} não combina com {other}: escolha uma das duas"
ARGS_UNKNOWN_OPTION_CLOSE = "opção desconhecida {option}; você quis dizer {match}?"
ARGS_REQUIRED = "falta o argumento {arguments}"
ARGS_EXPECTED_VALUE = "falta o valor"
ARGS_AMBIGUOUS = "opção ambígua: {option} pode ser {matches}"

# --- `docai search` (docai/cli/commands/search.py) -----------------------------------------
SEARCH_UPDATED = (
    "índice atualizado: {new} novo(s), {changed} alterado(s), {removed} removido(s)"
)
SEARCH_SKIPPED = "{count} arquivo(s) ignorado(s); `{command}` mostra os motivos"
INDEX_COMMAND = "docai index --docs {docs}"
INDEX_COMMAND_CACHE = "docai index --docs {docs} --cache-dir {cache}"
INDEX_COMMAND_STORE = "docai index --docs {docs} --store {store} --collection {collection}"
SEARCH_NO_RESULTS = "Nenhum trecho relevante para: {query}"
SEARCH_HIT = "{rank}. [{coverage}] {source} — {heading} (trecho {chunk})"
# A passage's share of the question's concepts: what a person can compare between passages
# and questions (the fused score behind the order is a rank, ~0.02 for every passage).
HIT_COVERAGE = "cobre {share:.0%}"
HIT_COVERAGE_NONE = "arquivo inteiro"
SEARCH_QUERY_HEADER = "» {query}"
SEARCH_NO_INPUT = (
    'sem PERGUNTA, leio uma pergunta por linha da entrada padrão, mas ela está fechada; '
    'ex.: docai search "num_ctx" ou echo "num_ctx" | docai search'
)
SEARCH_TYPE_QUESTIONS = "Digite uma pergunta por linha (Ctrl-D termina)."
SEARCH_EMPTY_QUESTION = 'a pergunta está vazia; escreva uma, ex.: docai search "num_ctx"'

# --- the REPL (docai/cli/repl.py, docai/cli/repl_commands.py) ------------------------------
REPL_PROMPT = "docai> "
REPL_WELCOME = (
    "docai pronto: {files} arquivo(s), {chunks} trecho(s) {origin}; modelo {model}.\n"
    "Faça uma pergunta. /ajuda mostra os comandos; sair encerra."
)
REPL_GOODBYE = "Até logo!"
REPL_EMPTY_LINE = "Escreva uma pergunta sobre a documentação (ou /ajuda, ou sair)."
REPL_HISTORY_UNAVAILABLE = (
    "aviso: não consigo gravar o histórico em {path} ({reason}); ele valerá só nesta sessão"
)
# /ajuda: a header, one line per command (docai/cli/repl_commands.py, COMMANDS), a footer.
# {thinking}, {k}, {max_k} and {model} are the session's current values.
REPL_HELP_HEADER = "Comandos:"
REPL_HELP_FOOTER = "Ctrl-C interrompe uma resposta em andamento."
REPL_HELP_HELP = "mostra esta ajuda"
REPL_HELP_SOURCES = "fontes da última resposta; /fontes N mostra o trecho N inteiro"
CITED_HEADER = "[{number}] {label}"
REPL_HELP_OPEN = "abre no seu editor o arquivo da fonte N (padrão 1), na linha do trecho"
OPEN_NOT_HERE = "{source} não está nesta máquina (vem do índice compartilhado); /fontes N mostra o trecho inteiro"
OPEN_ELSEWHERE = "abra {where} no seu visualizador; /fontes N mostra o trecho aqui"
OPEN_NEEDS_TERMINAL = "/abrir precisa de um terminal; o trecho está em {where}"
OPEN_NO_EDITOR = "nenhum editor encontrado (defina VISUAL ou EDITOR); o trecho está em {where}"
CITED_BAD_NUMBER = "use /fontes N com N de 1 a {count} (o número que a resposta cita); recebi {value!r}"
REPL_HELP_THINKING = "mostra ou oculta o raciocínio do modelo (agora: {thinking})"
REPL_HELP_K = "quantos trechos recuperar (agora: {k}; de 1 a {max_k})"
REPL_HELP_MODEL = "troca o modelo (agora: {model})"
REPL_HELP_REINDEX = "relê a pasta de documentos e atualiza o índice"
REPL_HELP_QUIT = "encerra, como Ctrl-D"
# {commands}: the slash commands with their arguments; {words}: the commands without a slash.
REPL_UNKNOWN_COMMAND = "comando desconhecido: {command}. Comandos: {commands} (e {words})"
ANSWER_VERBOSE_REFUSAL = (
    "(-v) os {k} melhores trechos cobrem {coverage:.2f} da pergunta; o mínimo é {bar:.2f} "
    "(--min-coverage)"
)
ANSWER_VERBOSE_NO_TERMS = "(-v) nenhuma palavra da pergunta está nos documentos; o mínimo é {bar:.2f}"
ONLY_NOTHING_THERE = (
    "nenhum arquivo da coleção está em {path!r} (um arquivo ou pasta relativo à pasta de "
    "documentos; algumas pastas: {folders})"
)
ONLY_WORDS = "Só {path}: {files} arquivo(s), {chunks} trecho(s); busca só por palavras nesta parte."
ARGS_ONLY_HELP = "pergunta só sobre este arquivo ou pasta da coleção (ex.: --only api/)"
REPL_HELP_FOLDER = "pergunta só sobre um arquivo ou pasta (/pasta - volta à coleção toda; @arquivo.md pergunta: só uma vez)"
REPL_SCOPE_WHOLE = "Perguntas sobre a coleção toda."
REPL_SCOPE_CURRENT = "Perguntas só sobre {path}; /pasta - volta à coleção toda."
REPL_AT_USAGE = "use @ARQUIVO pergunta, ex.: @guia.md como instalo?"
REPL_DID_YOU_MEAN = "comando desconhecido: {command}; você quis dizer {match}? (/ajuda lista todos)"
REPL_HELP_ALSO = " (também {names})"
REPL_NO_SOURCES = "Ainda não há fontes: faça uma pergunta primeiro."
REPL_LAST_WITHOUT_SOURCES = (
    "A última pergunta não teve fontes: nenhum trecho da documentação trata dela."
)
REPL_SOURCE_DETAIL = "  [{number}] {label}\n      {preview}"
REPL_THINKING_ON = "Raciocínio do modelo: visível (esmaecido)."
REPL_THINKING_OFF = "Raciocínio do modelo: oculto."
REPL_SHOWN = "visível"
REPL_HIDDEN = "oculto"
REPL_K_SET = "Agora recupero {k} trecho(s) por pergunta."
REPL_K_CURRENT = "Recupero {k} trecho(s) por pergunta; mude com /k N (de 1 a {max_k})."
REPL_BAD_THINKING = (
    "/pensamento aceita on ou off (ou nada, para alternar), recebi {value!r} "
    "(ex.: /pensamento on)"
)
REPL_BAD_K = "/k precisa de um número inteiro de 1 a {max_k}, recebi {value!r} (ex.: /k 5)"
REPL_MODEL_SET = "Modelo agora: {model}."
REPL_MODEL_CURRENT = "Modelo atual: {model}; troque com /modelo NOME (ex.: /modelo llama3.2)."
REPL_BAD_MODEL = "nome de modelo inválido: {value!r}; use um só nome, ex.: /modelo llama3.2"
REPL_REINDEXED = "Índice atualizado: {files} arquivo(s), {chunks} trecho(s)."
REPL_REINDEXED_CHANGES = "{new} novo(s), {changed} alterado(s), {removed} removido(s)."
REPL_REINDEXED_UNCHANGED = "Nenhum arquivo mudou."
REPL_REINDEX_STORE = (
    "O índice compartilhado (coleção {collection}: {files} arquivo(s), {chunks} trecho(s)) "
    "é atualizado por quem indexa, e cada pergunta já lê a versão mais recente. Para "
    "atualizá-lo, de uma pasta com os documentos: `{command}`."
)
REPL_REINDEXED_SKIPPED = "{count} arquivo(s) ignorado(s): `{command}` mostra os motivos."

# --- the conversation: /nova, /denovo (docai/cli/repl_commands.py) -------------------------
REPL_HELP_NEW = "começa uma conversa nova, sem as perguntas anteriores"
REPL_HELP_RETRY = "gera de novo a última resposta, sem usar o cache"
REPL_NEW_CONVERSATION = "Conversa nova: as perguntas anteriores não contam mais."
REPL_NOTHING_TO_RETRY = "Nada para gerar de novo: faça uma pergunta primeiro."

# --- the REPL's server check, /modelo, completion, config, first run (docai/cli/, docai/llm/) ---
LLM_PROBLEM_NO_MODELS = "falta a lista `models` de modelos instalados"
REPL_SERVER_READY = "Ollama em {url} respondendo; modelo {model} instalado."
REPL_SERVER_DOWN = (
    "aviso: o Ollama em {url} não responde (inicie com `ollama serve`, ou indique o endereço "
    "com --ollama-url ou OLLAMA_HOST). A busca funciona; até ele voltar, cada pergunta "
    "mostra só os trechos encontrados."
)
REPL_SERVER_MODEL_MISSING = (
    "aviso: o modelo {model!r} não está instalado no Ollama em {url}. Baixe-o com "
    "`ollama pull {model}` ou troque com /modelo NOME (instalados: {installed})."
)
REPL_SERVER_PROBLEM = "aviso: {error}"
REPL_NO_MODELS_INSTALLED = "nenhum; baixe um com `ollama pull llama3.2`"
# docai config, the config file, the docs folder found (docai/cli/config.py, commands/show_config.py)
ORIGIN_DEFAULT = "padrão"
ORIGIN_FILE = "arquivo de configuração"
ORIGIN_ENV = "variável de ambiente"
ORIGIN_OPTION = "opção"
ORIGIN_FOUND = "encontrada na pasta atual"
ORIGIN_NOTHING = "nenhuma definida nem encontrada"
CONFIG_FILE_LINE = "Arquivo de configuração: {path} ({state})"
CONFIG_FILE_READ = "lido"
CONFIG_FILE_ABSENT = "não existe"
CONFIG_NONE = "(nenhum)"
CONFIG_EXAMPLE = (
    "Para guardar escolhas, crie {path} com, por exemplo:\n"
    '  docs = "~/projeto/docs"\n  model = "llama3.2"\n  k = 5'
)
CONFIG_UNREADABLE = "não consigo ler o arquivo de configuração {path} ({reason}); corrija as permissões ou apague-o"
CONFIG_NOT_UTF8 = "o arquivo de configuração {path} não está em UTF-8; salve-o em UTF-8"
CONFIG_NOT_TOML = (
    "o arquivo de configuração {path} não é TOML válido ({reason}); corrija a linha indicada, "
    'ex.: model = "llama3.2" (textos entre aspas)'
)
CONFIG_UNKNOWN_KEY = (
    "o arquivo de configuração {path} tem a chave desconhecida {key!r}{hint}; as chaves "
    "válidas são {keys}. Corrija ou apague essa linha"
)
CONFIG_DID_YOU_MEAN = " (você quis dizer {key!r}?)"
CONFIG_BAD_VALUE = (
    "o arquivo de configuração {path} tem um valor inválido na chave {key!r}: {value!r} "
    "(esperava {expected}). Corrija a linha, ex.: {example}"
)
CONFIG_EXPECTED_NAME = "um nome entre aspas, sem espaços"
CONFIG_EXPECTED_FOLDER = "o caminho de uma pasta, entre aspas, ou uma lista deles"
CONFIG_EXPECTED_URL = "um endereço como http://127.0.0.1:11434, entre aspas"
CONFIG_EXPECTED_SWITCH = '"on" ou "off" (ou true/false, sem aspas)'
CONFIG_BAD_ENV = "a variável de ambiente {name}={value!r} não é válida: use {expected}"
ENV_EXPECTED_SWITCH = "on ou off"
ENV_EXPECTED_NAME = "um nome sem espaços, como deepseek-r1"
ENV_EXPECTED_URL = "um endereço como 127.0.0.1:11434 ou http://127.0.0.1:11434"
DOCS_MISSING_FROM = (
    "a pasta de documentos {path} não existe; ela vem de: {origin}. Corrija-a lá ou "
    "indique outra com --docs PASTA"
)
CONFIG_BUNDLED_EMBEDDER = "multilingual-e5-small (embutido)"
CONFIG_EXPECTED_K = "um número inteiro de 1 a {maximum}, sem aspas"
CONFIG_EXAMPLES = {
    "docs": 'docs = "~/projeto/docs"',
    "model": 'model = "llama3.2"',
    "server": 'server = "http://127.0.0.1:11434"',
    "dense": 'dense = "off"',
    "embedder": 'embedder = "nomic-embed-text"',
    "k": "k = 5",
    "log": "log = false",
    "store": 'store = "postgresql://docai@db.exemplo/docs"',
    "collection": 'collection = "docs"',
    "num_ctx": "num_ctx = 16384",
    "max_tokens": "max_tokens = 2048",
    "temperature": "temperature = 0.7",
    "thinking": "thinking = false",
    "show_thinking": "show_thinking = true",
    "system": 'system = "Responda em tópicos curtos."',
}
CONFIG_EXPECTED_NUMBER = "um número, sem aspas"
CONFIG_OUT_OF_RANGE = (
    "o arquivo de configuração {path} tem um valor fora do intervalo na chave {key!r}: "
    "{reason}. Corrija a linha, ex.: {example}"
)
CONFIG_EXPECTED_TEXT = "um texto entre aspas"
NO_DOCS_FOLDER = (
    "não sei qual pasta de documentação usar: não há {candidates} aqui. Indique-a com "
    "--docs PASTA, com a variável de ambiente {env}, ou com docs = \"PASTA\" em {config}"
)
# `docai ask` from standard input, usage hints (docai/cli/commands/ask.py, arguments.py)
ASK_NO_QUESTION = (
    'falta o argumento PERGUNTA: docai ask "Como instalo o docai?" (ou pela entrada padrão: '
    'echo "Como instalo?" | docai ask)'
)
ASK_EMPTY_STDIN = (
    'a entrada padrão chegou vazia: nenhuma pergunta para responder (ex.: echo "Como '
    'instalo?" | docai ask -)'
)
ASK_DASH_WITH_WORDS = (
    "- lê a pergunta da entrada padrão e vem sozinho; para perguntar com palavras, "
    'escreva-as sem o -: docai ask "Como instalo o docai?"'
)
ARGS_DID_YOU_MEAN = "comando desconhecido {value}; você quis dizer {match}? (comandos: {choices})"
# answers (docai/cli/render.py)
ANSWER_THINKING_LABEL = "Raciocínio do modelo:"
ANSWER_VERBOSE_RETRIEVED = "busca: {count} trecho(s) em {seconds:.2f} s"
ANSWER_VERBOSE_HIT = "  [{number}] {coverage}, ordem {score:.4f}  {label} (trecho {chunk})"
ANSWER_VERBOSE_TIMINGS = (
    "tempos: {total:.2f} s no total, primeira palavra em {first:.2f} s; {tokens} token(s) "
    "gerados ({rate} tokens/s); prompt de {prompt} token(s)"
)
INDEX_VERBOSE_OPENED = "índice: {files} arquivo(s), {chunks} trecho(s), aberto em {seconds:.2f} s; busca {method}"
# the REPL (docai/cli/repl.py, repl_commands.py, completion.py, server_check.py)
REPL_MODEL_NOT_INSTALLED = (
    "o modelo {model!r} não está instalado no Ollama em {url}; continuo com o atual. Baixe-o "
    "com `ollama pull {model}`, ou escolha um instalado: {installed}"
)
REPL_MODEL_CANNOT_CHAT = (
    "o modelo {model!r} não conversa (é só de embeddings?); continuo com o atual. Escolha "
    "um modelo de chat, ex.: /modelo llama3.2"
)
REPL_MODEL_UNCHECKED = (
    "aviso: não consegui confirmar que ele está instalado: o Ollama em {url} não responde "
    "(inicie com `ollama serve`)"
)
REPL_MODEL_UNCHECKED_PROBLEM = "aviso: não consegui confirmar que ele está instalado: {problem}"
REPL_HELP_CLEAR = "limpa a tela, como Ctrl-L (a conversa continua)"
REPL_READY = "docai pronto: {files} arquivo(s), {chunks} trecho(s) {origin}; modelo {model}."
REPL_FROM_DOCS = "de {docs}"
REPL_ECHO = "docai> {line}"
OPTION_BAD_SWITCH = "valor inválido: {value!r} (use on ou off)"
OPTION_BAD_NAME = "{value!r} não é um nome de modelo (um nome sem espaços, como deepseek-r1)"
OPTION_BAD_COVERAGE = "é a parte da pergunta que os trechos devem cobrir, de 0 a 1; recebi {value} (tente 0.6)"
# A folder given by the user (option, variable or config file), `docai.folders.user_folder`.
FOLDERS_UNION_FAILED = ("não consegui preparar a coleção de várias pastas em {path}: {reason}. "
                        "Indique outra pasta de índice com --cache-dir")
FOLDERS_NESTED = ("{origin}: a pasta {inner} está dentro de {outer}; seus arquivos seriam "
                  "lidos duas vezes. Indique só uma das duas")
FOLDERS_MISSING = ("{origin}: a pasta {path} não existe ou não é uma pasta. Confira o "
                   "caminho (uma coleção de várias pastas precisa de todas)")
FOLDER_BLANK = "{origin} está em branco: indique uma pasta (ex.: ~/projeto/docs)"
FOLDER_NUL = "{origin} tem um caractere nulo no caminho {value!r}: corrija o caminho"
FOLDER_NO_USER = (
    "{origin}: não há usuário {user!r} para expandir em {value!r}; use o caminho completo "
    "ou ~/ para a sua pasta pessoal"
)
FOLDER_TOO_LONG = (
    "{origin}: o caminho {value!r} é longo demais para o sistema ({length} bytes; o limite "
    "é {limit} no caminho e {name_limit} em cada nome): corrija o caminho"
)
CONFIG_TOO_DEEP = "listas ou tabelas aninhadas fundo demais"
BAD_READ_TIMEOUT_MAX = "--read-timeout vai até {maximum:g} segundos (um dia), recebi {value:g}"
OUTPUT_FAILED = "não consegui escrever a saída ({reason}); libere espaço ou escreva em outro lugar"
NOT_A_REGULAR_FILE = "não é um arquivo comum"
CONFIG_TOO_LARGE = "maior que {limit} bytes: não parece um arquivo de configuração"

# The shared store's config key (docai.store).
CONFIG_EXPECTED_STORE = "um endereço do PostgreSQL (postgresql://usuário@servidor/banco)"
ENV_EXPECTED_STORE = CONFIG_EXPECTED_STORE
REPL_FOLDER_CHANGED = "{count} arquivo(s) atualizado(s) na pasta desde a última pergunta ({new} novo(s), {changed} alterado(s), {removed} removido(s)); o índice já os inclui."
# The same, when some of those files could not be read (too slow, no text, a bomb): the
# index does not hold them, and saying it does would send the user looking for them.
REPL_FOLDER_CHANGED_SKIPPED = "{count} arquivo(s) atualizado(s) na pasta desde a última pergunta ({new} novo(s), {changed} alterado(s), {removed} removido(s)); {skipped} deles ficou(aram) de fora do índice: `docai status` diz por quê."
