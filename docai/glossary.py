"""Portuguese -> English words of technical documentation, for questions only.

Why: users ask in Portuguese about docs that are often in English. Stemming already joins
cognates ("configuração" / "configuration"), but many everyday words differ entirely
("pasta" / "folder", "busca" / "search", "padrão" / "default"). A question's Portuguese
words therefore also look up their usual English renderings; terms the docs do not
contain are ignored by the index, so a translation can only add matches, and Portuguese
docs are still found through the original words.

Keys are folded (no accents, lower case) dictionary forms; analysis matches them by
Portuguese stem, so "pastas" and "temas" find "pasta" and "tema". Values are English
words separated by spaces.
"""

from __future__ import annotations

PORTUGUESE_TO_ENGLISH: dict[str, str] = {
    # files, folders, storage
    "arquivo": "file", "pasta": "folder directory", "diretorio": "directory folder",
    "caminho": "path", "disco": "disk", "armazenamento": "storage", "salvar": "save",
    "gravar": "write save", "ler": "read", "leitura": "read", "escrita": "write",
    "apagar": "delete remove", "excluir": "delete remove", "remover": "remove",
    "copiar": "copy", "mover": "move", "renomear": "rename", "extensao": "extension",
    "raiz": "root", "lixeira": "trash",
    # software lifecycle
    "instalar": "install", "instalacao": "installation install", "desinstalar": "uninstall",
    "atualizar": "update upgrade", "atualizacao": "update upgrade", "versao": "version",
    "baixar": "download", "compilar": "build compile",
    "construir": "build", "gerar": "generate build", "gerado": "generated built",
    "executar": "run execute", "rodar": "run", "iniciar": "start", "parar": "stop",
    "reiniciar": "restart", "publicar": "publish deploy", "implantar": "deploy",
    "hospedar": "host hosting", "hospedagem": "hosting", "dependencia": "dependency",
    "pacote": "package", "biblioteca": "library", "modulo": "module",
    "complemento": "plugin extension", "requisito": "requirement",
    "funcionar": "work", "funciona": "works", "suporte": "support", "suportar": "support",
    # configuration
    "configurar": "configure", "configuracao": "configuration config settings",
    "opcao": "option", "parametro": "parameter", "variavel": "variable",
    "ambiente": "environment", "padrao": "default", "valor": "value", "definir": "set",
    "ajuste": "setting", "preferencia": "preference", "chave": "key", "obrigatorio": "required",
    "opcional": "optional", "habilitar": "enable", "ativar": "enable activate",
    "desativar": "disable", "desabilitar": "disable", "ligar": "enable", "desligar": "disable",
    "limite": "limit", "tamanho": "size", "maximo": "maximum max", "minimo": "minimum min",
    "profundidade": "depth", "tempo": "time timeout",
    "herdar": "inherit", "heranca": "inheritance", "sobrescrever": "override",
    "substituir": "replace override", "reutilizar": "reuse",
    # commands and the terminal
    "comando": "command", "linha": "line", "argumento": "argument",
    "saida": "output", "entrada": "input", "erro": "error", "aviso": "warning",
    "mensagem": "message", "registro": "log", "depurar": "debug", "falha": "failure fail",
    "falhar": "fail", "rigoroso": "strict", "estrito": "strict", "ajuda": "help",
    "atalho": "shortcut", "tecla": "key", "teclado": "keyboard", "sair": "exit quit",
    "interromper": "interrupt", "historico": "history", "modo": "mode",
    # network and servers
    "servidor": "server", "porta": "port", "endereco": "address", "rede": "network",
    "conexao": "connection", "conectar": "connect", "navegador": "browser",
    "requisicao": "request", "resposta": "response answer", "dominio": "domain",
    "seguranca": "security", "senha": "password", "usuario": "user", "conta": "account",
    "permissao": "permission", "acesso": "access", "recarregar": "reload",
    "recarregamento": "reload reloading", "vivo": "live",
    # documents and sites
    "documento": "document", "documentacao": "documentation docs", "pagina": "page",
    "tema": "theme", "modelo": "template model", "titulo": "title",
    "cabecalho": "header heading", "rodape": "footer", "fonte": "font source",
    "estilo": "style css", "imagem": "image", "icone": "icon",
    "botao": "button", "navegacao": "navigation nav", "barra": "bar",
    "lateral": "sidebar", "indice": "index", "sumario": "toc contents",
    "secao": "section", "trecho": "chunk passage", "ligacao": "link",
    "proximo": "next", "anterior": "previous", "idioma": "language locale",
    "lingua": "language", "traducao": "translation", "traduzir": "translate",
    "busca": "search", "buscar": "search", "pesquisa": "search", "pesquisar": "search",
    "procurar": "search find", "encontrar": "find", "lista": "list", "tabela": "table",
    "codigo": "code", "bloco": "block", "destaque": "highlight", "realce": "highlight",
    "personalizar": "customize custom", "personalizado": "custom customized",
    "customizar": "customize", "mudar": "change", "alterar": "change modify",
    "editar": "edit", "escrever": "write", "visualizar": "preview view", "ver": "view see",
    "mostrar": "show display", "exibir": "display show", "esconder": "hide",
    "ocultar": "hide", "incluir": "include", "adicionar": "add", "criar": "create",
    "novo": "new", "projeto": "project", "exemplo": "example", "guia": "guide",
    "referencia": "reference", "notas": "notes",
    "lancamento": "release", "licenca": "license", "autor": "author", "descricao": "description",
    "nome": "name", "ano": "year",     # models and retrieval (docai's own domain)
    "pergunta": "question", "perguntar": "ask", "responder": "answer",
    "contexto": "context", "janela": "window", "raciocinio": "thinking reasoning",
    "pensamento": "thinking", "temperatura": "temperature", "incorporacao": "embedding",
    "relevancia": "relevance", "pontuacao": "score",     "citar": "cite", "citacao": "citation",
    # general
    "uso": "usage use", "usar": "use", "exigir": "require", "precisar": "need",
    "permitir": "allow", "evitar": "avoid", "problema": "problem issue",
    "solucao": "solution fix", "corrigir": "fix", "lento": "slow", "rapido": "fast",
    "grande": "large big", "pequeno": "small", "vazio": "empty", "inteiro": "whole",
    "unico": "single only", "primeiro": "first", "ultimo": "last",
    "antigo": "old", "embutido": "builtin", "interno": "internal",
    "externo": "external", "automatico": "automatic",     }
