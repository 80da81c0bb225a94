"""The model servers' strings: what went wrong and what to do. pt-BR; see `docai.messages`."""

from __future__ import annotations

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
# Why a connection dropped, in place of httpx's English text (by the kind of failure).
LLM_REASON_CLOSED = "o servidor fechou a conexão antes do fim"
LLM_REASON_READ = "erro ao ler da rede"
LLM_REASON_WRITE = "erro ao enviar pela rede"
LLM_REASON_DECODING = "o corpo da resposta não pôde ser decodificado"
LLM_REASON_NETWORK = "erro de rede"
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

# --- a server that speaks another protocol (docai/llm/) ------------------------------------
LLM_WRONG_PROTOCOL = (
    "o servidor em {url} não está falando o protocolo {protocol}: {problem} (recebi {line!r}). "
    "Tentar de novo não muda isso; confira se o endereço é mesmo de {server} ({option})"
)
LLM_OVERSIZED = (
    "o servidor em {url} mandou mais de {size} MB de uma vez (uma linha ou uma resposta sem "
    "fim): a leitura foi interrompida para não esgotar a memória. Confira se o endereço é "
    "mesmo de {server} ({option})"
)
LLM_REDIRECTED = (
    "o servidor em {url} respondeu com um redirecionamento (HTTP {status}) para {location}; "
    "o docai não segue redirecionamentos: use o endereço final em {option}"
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
