"""The index's strings: cache, build, `docai index`. pt-BR; see `docai.messages`."""

from __future__ import annotations

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
    "a pasta {path} não tem documentos (Markdown, HTML, reST, AsciiDoc, Org, texto, PDF, "
    "EPUB, DOCX, ODT, notebooks, páginas man ou info){found}; "
    "adicione arquivos ou indique outra pasta com --docs PASTA"
)
INDEX_DUPLICATES = (
    "{count} trecho(s) repetem o texto de outro (a mesma página em dois formatos ou pastas?); "
    "a busca mostra cada texto uma vez"
)
NO_DOCUMENTS_FOUND = " (só arquivos de outros tipos: {kinds})"
NO_DOCUMENTS_KIND = "{count} {suffix}"
NO_DOCUMENTS_NO_SUFFIX = "sem extensão"
NO_DOCUMENTS_ONE_EACH = "1 de cada: {suffixes}"
NO_TEXT_IN_DOCUMENTS = (
    "nenhum dos {count} documento(s) em {path} tem texto para indexar; "
    "`docai index --docs {quoted}` mostra o motivo de cada um"
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
INDEX_UNREAD = (
    "{count} arquivo(s) ou pasta(s) não lidos ({kinds}); `docai status` diz cada um e por quê"
)
INDEX_UNREAD_MORE_KINDS = "{kinds} e mais {more} formato(s)"
INDEX_UNREAD_HIDDEN = "{count} pasta(s) oculta(s)"
INDEX_UNREAD_BUILD = "{count} pasta(s) de HTML do Sphinx (_sources, _static)"
INDEX_NOTICES_HEADER = "{count} aviso(s):"
INDEX_NOTICE_LINE = "  {source}: {message}"
INDEX_TIMINGS = (
    "tempo: varredura {scan:.2f} s, leitura {parse:.2f} s, índice {index:.2f} s, "
    "gravação {save:.2f} s (total {total:.2f} s)"
)
INDEX_CACHE_AT = "cache: {path}"

# --- the saved index: not saved, `docai index` exits 2 (docai/index/, docai/cli/commands/index.py) ---
INDEX_NOT_SAVED = (
    "índice construído, mas não salvo em {path} (motivo no aviso acima); até a pasta do "
    "cache ser gravável, cada comando vai reconstruí-lo"
)

# --- docai index --embed (docai/cli/commands/index.py) ---
INDEX_EMBED_NEEDS_DENSE = (
    "--embed calcula os embeddings da busca por significado, que está desligada "
    "(--dense off, DOCAI_DENSE=off ou dense = \"off\" no arquivo de configuração); "
    "ligue-a com --dense on para usá-lo"
)
INDEX_EMBEDDINGS_NOT_SAVED = (
    "embeddings calculados, mas não salvos em {path} ({reason}); até a pasta do cache ser "
    "gravável, cada sessão vai calculá-los de novo"
)
INDEX_EMBED_INTERRUPTED = (
    "Interrompido. Os embeddings já calculados estão salvos; `docai index --embed` "
    "continua de onde parou."
)
INDEX_EMBEDDED = "Embeddings prontos para os {chunks} trechos ({windows} janelas novas em {seconds:.1f} s)."

# --- docai index embedding a small collection up front (docai/cli/commands/index.py) ---
INDEX_IGNORED = (
    "{count} arquivo(s) ou pasta(s) deixados de fora por regras (.git, node_modules, ambientes "
    "virtuais, .gitignore e .docaiignore da pasta; !padrão no .docaiignore traz de volta)"
)
STATUS_DOCS = "Pasta: {docs}"
STATUS_FOLDERS = "Pastas (uma coleção): {docs}"
STATUS_EMBEDDED = "Embeddings: {embedded} de {chunks} trecho(s) ({model})"
STATUS_SKIPPED_SEE = "{count} arquivo(s) ignorado(s): docai status diz cada um e por quê"
STATUS_NOT_INDEXED = "Ainda não indexada: docai index (ou a primeira pergunta) constrói o índice."
STATUS_FILES = "Arquivos indexados: {files} ({formats}); {chunks} trecho(s)"
STATUS_WRITTEN = "Índice gravado em {time} (UTC)"
STATUS_UP_TO_DATE = "A pasta não mudou desde então."
STATUS_CHANGED = "A pasta mudou desde então: {new} novo(s), {changed} alterado(s), {removed} removido(s); a próxima pergunta ou docai index os lê."
STATUS_IGNORED = "{count} arquivo(s) ou pasta(s) deixados de fora por regras (.gitignore, .docaiignore, pastas de ferramentas)"
STATUS_SKIPPED = "Ignorados ({count}):"
STATUS_UNREAD = (
    "Não lidos ({count}): formatos que o docai não lê, pastas ocultas e o que as regras "
    "deixam de fora:"
)
STATUS_UNREAD_SEE = "{count} arquivo(s) ou pasta(s) não lidos: docai status diz cada um e por quê"
STATUS_SKIPPED_LINE = "  {source}: {reason}"
