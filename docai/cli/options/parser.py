"""The command line's options and sub-commands, and the Settings they make.

Every default and every choice list comes from `docai.settings` (and the retrieval
methods from `docai.retrieval.params.METHODS`); help texts format them in, so the
help cannot disagree with what docai does. Shared options are accepted before or after
the sub-command (`docai --docs D search Q` and `docai search Q --docs D` mean the same).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from docai import __version__, messages
from docai.cli.options.arguments import ArgumentParser
from docai.cli.options.config import (
    Sourced,
    check_env_server,
    on_off,
    sourced_values,
)
from docai.cli.options.option_groups import CANDIDATES, COMMAND_GROUPS, DEFAULTS, shared_options
from docai.cli.options.suggest import closest
from docai.errors import SettingsError
from docai.folder_union import distinct_folders, union_folder
from docai.folders import user_folder
from docai.settings import (
    DEFAULT_DOCS_DIR,
    ENV_DENSE,
    ENV_DOCS,
    ENV_GITIGNORE,
    ENV_MODEL,
    ENV_OLLAMA_HOST,
    ENV_STORE_HNSW,
    LOCAL_HOST,
    OLLAMA_PORT,
    ChunkSettings,
    Settings,
    cache_folder,
    normalise_ollama_url,
)

LOG_DEFAULT_LIMIT = 10  # `docai log`: the last ten exchanges

DESCRIPTION = """\
docai responde perguntas sobre a sua pasta de documentação (Markdown, MDX, reST,
AsciiDoc, Org, HTML, PDF, EPUB, DOCX, ODT, notebooks, páginas man e info, texto) com um LLM
local (Ollama), citando os trechos dos seus arquivos. Nada sai da sua máquina.

Sem subcomando, abre o modo interativo (digite `sair` para terminar)."""

EPILOG = f"""\
exemplos:
  docai                                   conversa sobre {CANDIDATES}
  docai --docs ~/projeto/docs             conversa sobre outra pasta
  docai ask "Como instalo o docai?"       uma resposta e sai (ou só docai "…")
  docai ask -c "e com pipx?"              pergunta dentro da última conversa (-r N: a N)
  echo "Como instalo?" | docai ask        a pergunta pela entrada padrão
  docai search "num_ctx" -k 5 --json      só a busca, em JSON
  docai index --rebuild                   reconstrói o índice
  docai index --embed                     calcula já os embeddings de todos os trechos
  docai --dense off                       só a busca por palavras
  docai eval tests/eval/docai.jsonl       mede a qualidade da busca
  docai config                            mostra as configurações e de onde vêm
  docai -c                                retoma a última conversa desta pasta
  docai log -n 5 --search porta           as últimas perguntas e respostas, com as fontes
  docai mcp --docs ~/projeto/docs         serve a busca a agentes de código (MCP)
  docai --store postgresql://db/docai     usa o índice compartilhado da equipe

variáveis de ambiente (as opções valem mais):
  {ENV_DOCS}        pasta de documentação
  {ENV_MODEL}       modelo (padrão {DEFAULTS.model})
  {ENV_OLLAMA_HOST}       endereço do Ollama (padrão {LOCAL_HOST}:{OLLAMA_PORT})
  {ENV_DENSE}       on ou off: busca por significado (padrão on)
  DOCAI_CACHE_DIR   onde guardar os índices (padrão: a pasta de cache do usuário)
  DOCAI_STORE       índice compartilhado num PostgreSQL (postgresql://...; docs/team.md)

arquivo de configuração (as variáveis valem mais): config.toml na pasta de configuração do
usuário (`docai config` mostra onde), com as chaves docs, model, server, dense, embedder, k,
store, collection, log (log = false não registra as conversas) e o que /set muda: num_ctx,
max_tokens, temperature, thinking, show_thinking, system.
"""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="docai",
        description=DESCRIPTION,
        epilog=EPILOG,
        parents=[shared_options()],
    )
    parser.add_argument("--version", action="version", version=f"docai {__version__}",
                        help=messages.ARGS_VERSION_HELP)
    parser.add_argument("-c", "--continuar", "--continue", dest="resume", action="store_true",
                        help=messages.ARGS_CONTINUE_HELP)
    parser.add_argument("-r", "--retomar", "--resume", dest="resume_number", type=int,
                        metavar="N", help=messages.ARGS_RESUME_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMANDO")

    ask = commands.add_parser(
        "ask", parents=[_options_of("ask")], help="responde uma pergunta e sai",
        description="Responde uma pergunta com fontes e sai. Com -, ou sem PERGUNTA e com a "
        "entrada padrão redirecionada, lê a pergunta da entrada padrão.")
    # Several words are joined: `docai ask como troco o modelo` asks what it says.
    ask.add_argument("question", metavar="PERGUNTA", nargs="*",
                     help="a pergunta, entre aspas ou em várias palavras (- lê da entrada)")
    # Their own names: a subparser's default would overwrite `docai -c ask`'s value.
    ask.add_argument("-c", "--continuar", "--continue", dest="ask_continue",
                     action="store_true", help=messages.ARGS_ASK_CONTINUE_HELP)
    ask.add_argument("-r", "--retomar", "--resume", dest="ask_resume", type=int, metavar="N",
                     help=messages.ARGS_ASK_RESUME_HELP)

    search = commands.add_parser(
        "search", parents=[_options_of("search")], help="mostra os trechos que a busca encontra",
        description="Mostra os trechos recuperados para uma pergunta, sem chamar o modelo. "
        "Sem PERGUNTA, lê uma pergunta por linha da entrada padrão (JSON Lines com --json).")
    search.add_argument("question", metavar="PERGUNTA", nargs="*",
                        help="a pergunta (sem ela, uma por linha da entrada padrão)")

    index = commands.add_parser(
        "index", parents=[_options_of("index")], help="constrói ou atualiza o índice",
        description="Constrói ou atualiza o índice e mostra o que mudou. Os embeddings da "
        "busca por significado são calculados aos poucos (os das perguntas na hora, o resto "
        "quando o modo interativo está ocioso); numa coleção pequena (até 600 janelas "
        "de texto sem embedding: menos de um minuto) o index calcula todos já, e "
        "--embed calcula todos agora em qualquer coleção.")
    index.add_argument("--embed", action="store_true",
                       help="calcula os embeddings de todos os trechos (pode levar minutos; "
                       "Ctrl-C para, e a próxima vez continua de onde parou)")

    evaluate = commands.add_parser(
        "eval", parents=[_options_of("eval")],
        help="mede a qualidade da busca com perguntas e respostas",
        description="Lê um arquivo JSON Lines de perguntas com respostas esperadas e mostra "
        "hit@1, hit@3, hit@10 e MRR@10.")
    evaluate.add_argument("qa_file", type=Path, metavar="QA.jsonl")

    log = commands.add_parser(
        "log", parents=[_options_of("log")], help=messages.LOG_COMMAND_HELP,
        description=messages.LOG_COMMAND_DESCRIPTION)
    log.add_argument("-n", dest="limit", type=int, metavar="N", default=LOG_DEFAULT_LIMIT,
                     help=messages.LOG_LIMIT_HELP.format(default=LOG_DEFAULT_LIMIT))
    log.add_argument("--search", nargs="+", metavar="PALAVRA", default=[],
                     help=messages.LOG_SEARCH_HELP)
    manage = log.add_mutually_exclusive_group()
    manage.add_argument("--rename", nargs=2, metavar=("N", "NOME"), help=messages.LOG_RENAME_HELP)
    manage.add_argument("--delete", nargs="+", type=int, metavar="N",
                        help=messages.LOG_DELETE_HELP)
    manage.add_argument("--clear", action="store_true", help=messages.LOG_CLEAR_HELP)
    log.add_argument("-y", "--yes", action="store_true", help=messages.LOG_YES_HELP)

    commands.add_parser(
        "mcp", parents=[_options_of("mcp")], help=messages.MCP_COMMAND_HELP,
        description=messages.MCP_COMMAND_DESCRIPTION)

    store = commands.add_parser(
        "store", parents=[_options_of("store")], help=messages.STORE_COMMAND_HELP,
        description=messages.STORE_COMMAND_DESCRIPTION)
    # Optional: `docai store` alone shows this help (main), not argparse's "missing action".
    store.add_argument("action", choices=("list", "drop"), nargs="?",
                       help=messages.STORE_ACTION_HELP)
    store.add_argument("name", metavar="NOME", nargs="?", help=messages.STORE_NAME_HELP)
    store.add_argument("-y", "--yes", action="store_true", help=messages.STORE_YES_HELP)

    commands.add_parser(
        "status", parents=[_options_of("status")], help=messages.STATUS_COMMAND_HELP,
        description=messages.STATUS_COMMAND_DESCRIPTION)

    commands.add_parser(
        "config", parents=[_options_of("config")],
        help="mostra as configurações em vigor e de onde vêm",
        description="Mostra a pasta de documentos, o modelo, o servidor, o modelo de "
        "embeddings e k em vigor, e de onde cada um veio: padrão, arquivo de configuração, "
        "variável de ambiente ou opção.")
    return parser


def question_as_ask(parser: ArgumentParser, argv: Sequence[str]) -> list[str]:
    """`docai "Como troco o modelo?"` read as `docai ask "…"`, as `llm` reads it: the first
    word where a command goes is a question when it is no command and not a mistyped one
    (`docai serach` still gets "você quis dizer search")."""
    argv = list(argv)
    commands = subcommands(parser)
    takes_value = {option for action in parser._actions if action.nargs != 0
                   for option in action.option_strings}
    position = 0
    while position < len(argv):
        token = argv[position]
        if token == "--" or not token.startswith("-") or token == "-":
            break
        name = token.split("=", 1)[0]
        matches = [option for option in takes_value if option.startswith(name)]
        wants_value = "=" not in token and (name in takes_value or (
            name.startswith("--") and len(matches) == 1))
        position += 2 if wants_value else 1
    else:
        return argv
    if argv[position] == "--":
        return argv
    word = argv[position]
    if word in commands or (" " not in word and not word.endswith("?")
                            and closest(word, commands) is not None):
        return argv
    return [*argv[:position], "ask", *argv[position:]]


def subcommands(parser: ArgumentParser) -> list[str]:
    """The names of `parser`'s subcommands."""
    return list(subparsers(parser))


def subparsers(parser: ArgumentParser) -> dict[str, ArgumentParser]:
    """`parser`'s subcommands by name, each with its own parser (`docai store`'s help)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options_of(command: str) -> ArgumentParser:
    """The shared options `command` takes (`option_groups.COMMAND_GROUPS`)."""
    return shared_options(COMMAND_GROUPS[command], suppress_defaults=True)


def settings_from_args(
    args: argparse.Namespace,
    environ: dict[str, str],
    values: dict[str, Sourced] | None = None,
) -> Settings:
    """The Settings for `args`; `values` are `config.sourced_values(args, environ)` (read
    here when not given). Without any docs folder the default stands in (the caller that
    needs one checks `values["docs"]` first)."""
    if values is None:
        values = sourced_values(args, environ)
    if args.backend == "ollama" and values["server"].origin.name == ENV_OLLAMA_HOST:
        check_env_server(environ[ENV_OLLAMA_HOST])
    docs = values["docs"].value or DEFAULT_DOCS_DIR
    settings = Settings(
        docs_dir=user_folder(docs[0] if isinstance(docs, tuple) else docs,
                             values["docs"].origin.describe()),
        cache_dir=cache_folder(args.cache_dir, environ),
        rebuild=args.rebuild,
        follow_links=args.follow_links,
        top_k=values["k"].value,
        min_coverage=args.min_coverage,
        chunking=ChunkSettings(max_tokens=args.chunk_tokens, overlap_tokens=args.chunk_overlap),
        backend=args.backend,
        model=values["model"].value,
        ollama_url=normalise_ollama_url(values["server"].value),
        base_url=args.base_url,
        num_ctx=values["num_ctx"].value,
        temperature=values["temperature"].value,
        max_tokens=values["max_tokens"].value,
        system_prompt=values["system"].value,
        read_timeout=args.read_timeout,
        show_thinking=values["show_thinking"].value,
        think=values["thinking"].value,
        dense=values["dense"].value,
        only=getattr(args, "only", None),
        embed_model=values["embedder"].value,
        retrieval=args.retrieval,
        json_output=args.json_output,
        verbosity=args.verbosity,
        log=values["log"].value,
        store=values["store"].value,
        collection=_collection(values["collection"].value),
        store_hnsw=on_off(environ.get(ENV_STORE_HNSW, "on")) is not False,
        use_gitignore=on_off(environ.get(ENV_GITIGNORE, "on")) is not False,
    )
    if isinstance(docs, tuple):
        return _several_folders(settings, docs, values["docs"].origin.describe())
    return settings


def _several_folders(settings: Settings, folders: tuple[Path, ...], origin: str) -> Settings:
    """`settings` reading `folders` as one collection, through the folder of links
    `folder_union` keeps under the cache (one folder when they are all the same)."""
    checked = [user_folder(folder, origin) for folder in folders]
    for folder in checked:
        if not folder.expanduser().is_dir():
            raise SettingsError(messages.FOLDERS_MISSING.format(origin=origin, path=folder))
    distinct = distinct_folders(checked, origin)
    if len(distinct) == 1:
        return replace(settings, docs_dir=distinct[0])
    return replace(settings, docs_dir=union_folder(distinct, settings.cache_base()),
                   docs_folders=distinct)


def _collection(name: str | None) -> str | None:
    if name is not None and not (0 < len(name) <= 200 and name.isprintable() and name.strip()):
        raise SettingsError(messages.STORE_BAD_COLLECTION.format(name=name))
    return name
