"""Loading's strings: folders, files, encodings, what was skipped and why. pt-BR; see `docai.messages`."""

from __future__ import annotations

# --- loading (docai/loading/) --------------------------------------------------------------
DOCS_MISSING = (
    "a pasta de documentos {path} não existe. Indique outra com --docs PASTA "
    "(ex.: docai --docs ~/meus-docs)"
)
DOCS_NOT_A_DIR = "{path} não é uma pasta. Use --docs com uma pasta de documentos (.md, .rst, .html, .pdf...)"
DOCS_UNREADABLE = "não consigo ler a pasta {path}: {reason}"
LOAD_SKIP_EMPTY = "arquivo vazio (ou só espaços em branco); escreva algum texto ou remova-o"
LOAD_SKIP_TRANSCRIPT = (
    "é uma conversa gravada pelo docai (/salvar), não documentação: fica fora do índice"
)
LOAD_SKIP_NO_TEXT = (
    "nenhum texto sobrou depois de remover a marcação (só títulos, scripts, menus ou front matter?)"
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
LOAD_SKIP_UNSUPPORTED = "formato {suffix}, que o docai não lê"
LOAD_SKIP_TOO_NESTED = "marcação aninhada demais para ser lida; simplifique o arquivo"
LOAD_NOTICE_ENCODING = (
    "não está em UTF-8; lido como {encoding}. Salve o arquivo em UTF-8 para evitar este aviso"
)

# --- discovery and loading: links, loops, special files, time limits, repaired bytes --------
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
DISCOVER_UNREAD_NO_SUFFIX = (
    "arquivo sem extensão que não é README, NEWS, INSTALL, COPYING... (esses são lidos como "
    "texto); para lê-lo, dê a ele a extensão do formato (.txt, .md...)"
)
DISCOVER_UNREAD_HIDDEN = "pasta oculta (o nome começa com ponto): docai não entra nela"
DISCOVER_UNREAD_BUILD = (
    "pasta de um HTML gerado pelo Sphinx (cópias das fontes ou o tema): as páginas são lidas"
)
DISCOVER_UNREAD_RULE = (
    "deixado de fora por regra (.gitignore, .docaiignore ou as pastas de ferramentas); "
    "!padrão no .docaiignore traz de volta"
)
DISCOVER_UNREAD_RULES_FILE = "regras do que deixar de fora: lidas como regras, não como documento"
DISCOVER_SKIP_DOC_NAMED_FOLDER = "é uma pasta, não um arquivo {suffix}, e não tem documentos dentro"
LOAD_SKIP_TOO_SLOW = (
    "levou mais de {seconds} s para ser lido (marcação patológica?) e ficou de fora; "
    "simplifique ou divida o arquivo (se ele é normal, tente de novo com --rebuild)"
)
LOAD_NOTICE_REPAIRED = (
    "UTF-8 com {count} byte(s) inválido(s), lido(s) como Windows-1252 (cp1252); "
    "salve o arquivo em UTF-8 para evitar este aviso"
)

# --- where a passage lies, as a citation shows it (`guia.rst:120`, `manual.pdf p. 47`) -------
LOCATION_LABELS = {"line": "{source}:{number}", "page": "{source} p. {number}",
                   "cell": "{source} célula {number}"}

# --- formats: reST includes, PDF, EPUB, notebooks ------------------------------------------
LOAD_NOTE_INCLUDE_OUTSIDE = (
    "include de {target} ignorado: fica fora da pasta de documentos (docai só lê o que está nela)"
)
LOAD_NOTE_INCLUDE_MISSING = "include de {target} ignorado: {reason}"
LOAD_INCLUDE_NOT_FOUND = "não existe na pasta de documentos"
LOAD_INCLUDE_FOLDER = "é uma pasta, não um arquivo"
LOAD_NOTE_INCLUDES_TOO_MANY = "só os primeiros {limit} includes da página foram lidos"
LOAD_NOTE_AUTODOC = (
    "as referências de API (autodoc: autofunction, autoclass...) vêm do código, que docai "
    "não executa; para tê-las, indexe o HTML gerado pelo Sphinx"
)
LOAD_NOTE_INCLUDE_TOO_DEEP = "include de {target} ignorado: includes aninhados demais (ou em ciclo)"
LOAD_SKIP_PDF_BROKEN = "PDF danificado ou ilegível ({reason}); abra-o e salve de novo, ou remova-o"
LOAD_SKIP_PDF_ENCRYPTED = "PDF protegido por senha; salve uma cópia sem senha para indexá-lo"
LOAD_SKIP_PDF_NO_TEXT = (
    "PDF sem camada de texto (páginas escaneadas, só imagens); docai não faz OCR. "
    "Passe-o por um OCR (ex.: ocrmypdf) e indexe o resultado"
)
LOAD_SKIP_MAN_LINK = "página de manual que só aponta para outra ({target}), lida lá"
LOAD_SKIP_NOT_MAN = "nome de página de manual, mas sem as macros de uma (.TH, .SH, .Dd...)"
LOAD_SKIP_INFO_INDIRECT = "índice de um manual info dividido em partes; as partes são lidas"
LOAD_SKIP_GZ_BROKEN = "arquivo .gz danificado ({reason})"
LOAD_GZ_TRUNCATED = "cortado antes do fim"
LOAD_GZ_CORRUPT = "dados comprimidos corrompidos"
LOAD_GZ_TOO_MANY_MEMBERS = "mais de {limit} partes comprimidas uma após a outra"
LOAD_SKIP_GZ_TOO_BIG = "descompactado passaria de {limit} (suspeito de bomba); não foi aberto"
LOAD_SKIP_GZ_UNSUPPORTED = "compactado com gzip, mas o conteúdo ({suffix}) não é um formato que docai lê"
LOAD_SKIP_PDF_NO_PAGES = "PDF sem nenhuma página"
LOAD_SKIP_PDF_BLANK = "PDF sem texto nem imagens nas páginas (páginas em branco ou só desenhos)"
LOAD_NOTE_PDF_LITTLE_TEXT = (
    "só um pouco do texto das {pages} páginas é texto de verdade (o resto deve ser imagem "
    "ou desenho); o que não é texto não será encontrado. Um OCR (ex.: ocrmypdf) resolve"
)
LOAD_SKIP_GENERATED_INDEX = (
    "índice ou busca gerados pelo Sphinx (só navegação: as páginas que ele lista são lidas)"
)
LOAD_SKIP_ANTORA_NAV = "menu de navegação do Antora (nav.adoc): as páginas que ele lista são lidas"
LOAD_SKIP_EPUB_BROKEN = "EPUB danificado ({reason}); ele é um zip de capítulos XHTML"
LOAD_SKIP_EPUB_TOO_BIG = (
    "EPUB descompactado passaria de {limit} (suspeito de bomba zip); não foi aberto"
)
LOAD_SKIP_ZIPPED_BROKEN = "{kind} danificado ({reason}); abra-o e salve de novo, ou remova-o"
LOAD_SKIP_ZIPPED_TOO_BIG = (
    "{kind} descompactado passaria de {limit} (suspeito de bomba zip); não foi aberto"
)
LOAD_SKIP_NOTEBOOK_BROKEN = "notebook Jupyter inválido ({reason}); abra-o no Jupyter e salve de novo"

# --- ignore files (docai/loading/ignore.py) --------------------------------------------------
IGNORE_RULE_INVALID = (
    "linha {line}: regra {rule!r} inválida, ignorada (como o git faz); corrija-a ou apague-a"
)
IGNORE_RULE_TOO_LONG = "linha {line}: regra com mais de {limit} caracteres, ignorada"
IGNORE_TOO_MANY_RULES = (
    "só as primeiras {limit} regras valem; da linha {line} em diante, o arquivo foi ignorado"
)
IGNORE_FILE_TOO_BIG = "arquivo de regras maior que {limit} MB, ignorado por inteiro"
LOAD_SKIP_PARSE_MEMORY = (
    "a leitura passou do limite de memória ({limit}) e foi interrompida (arquivo construído "
    "para estourar a memória, ou danificado?); ficou de fora"
)
LOAD_SKIP_PARSE_CRASHED = (
    "o leitor do formato parou sem terminar ({how}): arquivo danificado, ou construído para "
    "passar do limite de memória ({limit}); ficou de fora. Abra-o e salve de novo, ou remova-o"
)
LOAD_SKIP_PARSE_ERROR = (
    "erro inesperado do docai ao ler este arquivo ({error}); ficou de fora. Por favor, relate "
    "o problema com o arquivo"
)
