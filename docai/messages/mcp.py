"""`docai mcp`: the MCP server's tool descriptions and the command's own lines. pt-BR; see
`docai.messages`. (Coding agents read the descriptions; they read Portuguese well.)"""

from __future__ import annotations

MCP_COMMAND_HELP = "serve a busca a agentes de código (Claude Code, Cursor, Zed, Codex) por MCP"
MCP_COMMAND_DESCRIPTION = (
    "Um servidor Model Context Protocol na entrada e saída padrão: os agentes de código "
    "buscam na mesma pasta de documentos (ferramentas search_docs e list_sources). Não chama "
    "o modelo nem grava no registro de conversas; como docai search, cria o índice no cache "
    "se ainda não houver. Ex.: claude mcp add docai -- docai mcp --docs ~/projeto/docs"
)
MCP_MISSING = (
    "docai mcp precisa do SDK do MCP; instale-o com: pip install 'docai[mcp]' (num clone do "
    "código do docai: pip install -e '.[mcp]' na pasta do clone, ou make install)"
)
MCP_STORE_WHERE = "da coleção {collection} do índice compartilhado"
MCP_FOLDER_WHERE = "de {docs}"
MCP_READY = "docai mcp: {chunks} trecho(s) de {files} arquivo(s) {where}, esperando o agente."
MCP_INSTRUCTIONS = (
    "Busca na documentação local de {docs}. Use search_docs com uma pergunta (em qualquer "
    "língua) para obter os trechos mais relevantes, cada um com arquivo, seção e texto; "
    "list_sources lista os arquivos indexados. Cite o arquivo e a seção ao usar um trecho."
)
MCP_SEARCH_DESCRIPTION = (
    "Busca trechos da documentação para uma pergunta ou termos (português ou inglês). "
    "Devolve {{query, results: [{{source, heading, text, score, coverage, chunk, "
    "location}}]}}, o melhor primeiro (coverage: a parte da pergunta que o trecho "
    "cobre, 0 a 1), o mesmo que `docai search --json`; results vazio quando a "
    "documentação não "
    "cobre a pergunta. k: quantos trechos (1 a {max_k}, padrão {k})."
)
MCP_SOURCES_DESCRIPTION = (
    "Lista os arquivos indexados: {docs, sources: [{source, chunks, headings}]}, com o "
    "caminho relativo à pasta de documentos e as seções de cada um."
)
MCP_QUERY_DESCRIPTION = "a pergunta ou os termos a buscar, como um usuário os escreveria"
MCP_K_DESCRIPTION = "quantos trechos devolver, de 1 a {max_k}"
MCP_EMPTY_QUERY = "query vazia: escreva uma pergunta ou termos a buscar"
MCP_BAD_K = "k deve ser de 1 a {max_k}, recebi {value}"
# The method an over-long request is answered as (`mcp_stdio`): the SDK's "method not found"
# reply carries it, with the request's id.
MCP_REQUEST_TOO_LARGE = (
    "docai: pedido de {size:.0f} MB ignorado sem ser lido; o limite é {limit:.0f} MB por "
    "pedido (uma pergunta tem até 64 mil caracteres): envie uma pergunta mais curta"
)
