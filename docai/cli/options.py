"""The command line's options and sub-commands, and the Settings they make.

Every default and every choice list comes from `docai.settings` (and the retrieval
methods from `docai.retrieval.params.METHODS`); help texts format them in, so the
help cannot disagree with what docai does. Shared options are accepted before or after
the sub-command (`docai --docs D search Q` and `docai search Q --docs D` mean the same).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from docai import __version__, messages
from docai.cli.arguments import ArgumentParser
from docai.cli.config import (
    Sourced,
    check_env_server,
    is_model_name,
    on_off,
    sourced_values,
)
from docai.errors import SettingsError
from docai.folders import user_folder
from docai.retrieval.params import DEFAULT_PARAMS, METHODS
from docai.settings import (
    BACKENDS,
    DEFAULT_DOCS_DIR,
    DOCS_CANDIDATES,
    ENV_DENSE,
    ENV_DOCS,
    ENV_MODEL,
    ENV_OLLAMA_HOST,
    ENV_STORE_HNSW,
    LOCAL_HOST,
    NORMAL,
    OLLAMA_PORT,
    QUIET,
    VERBOSE,
    ChunkSettings,
    Settings,
    cache_folder,
    normalise_ollama_url,
)

DEFAULTS = Settings()
LOG_DEFAULT_LIMIT = 10  # `docai log`: the last ten exchanges

DESCRIPTION = """\
docai responde perguntas sobre a sua pasta de documentação (Markdown, HTML, texto)
com um LLM local (Ollama), citando os trechos dos seus arquivos. Nada sai da sua máquina.

Sem subcomando, abre o modo interativo (digite `sair` para terminar)."""

_CANDIDATES = " ou ".join(f"./{path}" for path in DOCS_CANDIDATES)
EPILOG = f"""\
exemplos:
  docai                                   conversa sobre {_CANDIDATES}
  docai --docs ~/projeto/docs             conversa sobre outra pasta
  docai ask "Como instalo o docai?"       uma resposta e sai
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
store e log (log = false não registra as conversas).
"""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="docai",
        description=DESCRIPTION,
        epilog=EPILOG,
        parents=[_shared_options(suppress_defaults=False)],
    )
    parser.add_argument("--version", action="version", version=f"docai {__version__}",
                        help=messages.ARGS_VERSION_HELP)
    parser.add_argument("-c", "--continuar", "--continue", dest="resume", action="store_true",
                        help=messages.ARGS_CONTINUE_HELP)
    shared = _shared_options(suppress_defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMANDO")

    ask = commands.add_parser(
        "ask", parents=[shared], help="responde uma pergunta e sai",
        description="Responde uma pergunta com fontes e sai. Com -, ou sem PERGUNTA e com a "
        "entrada padrão redirecionada, lê a pergunta da entrada padrão.")
    # Several words are joined: `docai ask como troco o modelo` asks what it says.
    ask.add_argument("question", metavar="PERGUNTA", nargs="*",
                     help="a pergunta, entre aspas ou em várias palavras (- lê da entrada)")

    search = commands.add_parser(
        "search", parents=[shared], help="mostra os trechos que a busca encontra",
        description="Mostra os trechos recuperados para uma pergunta, sem chamar o modelo. "
        "Sem PERGUNTA, lê uma pergunta por linha da entrada padrão (JSON Lines com --json).")
    search.add_argument("question", metavar="PERGUNTA", nargs="*",
                        help="a pergunta (sem ela, uma por linha da entrada padrão)")

    index = commands.add_parser(
        "index", parents=[shared], help="constrói ou atualiza o índice",
        description="Constrói ou atualiza o índice e mostra o que mudou. Os embeddings da "
        "busca por significado são calculados aos poucos (os das perguntas na hora, o resto "
        "quando o modo interativo está ocioso); numa coleção pequena (até 600 janelas "
        "de texto sem embedding: menos de um minuto) o index calcula todos já, e "
        "--embed calcula todos agora em qualquer coleção.")
    index.add_argument("--embed", action="store_true",
                       help="calcula os embeddings de todos os trechos (pode levar minutos; "
                       "Ctrl-C para, e a próxima vez continua de onde parou)")

    evaluate = commands.add_parser(
        "eval", parents=[shared], help="mede a qualidade da busca com perguntas e respostas",
        description="Lê um arquivo JSON Lines de perguntas com respostas esperadas e mostra "
        "hit@1, hit@3, hit@10 e MRR@10.")
    evaluate.add_argument("qa_file", type=Path, metavar="QA.jsonl")

    log = commands.add_parser(
        "log", parents=[shared], help=messages.LOG_COMMAND_HELP,
        description=messages.LOG_COMMAND_DESCRIPTION)
    log.add_argument("-n", dest="limit", type=int, metavar="N", default=LOG_DEFAULT_LIMIT,
                     help=messages.LOG_LIMIT_HELP.format(default=LOG_DEFAULT_LIMIT))
    log.add_argument("--search", nargs="+", metavar="PALAVRA", default=[],
                     help=messages.LOG_SEARCH_HELP)

    commands.add_parser(
        "mcp", parents=[shared], help=messages.MCP_COMMAND_HELP,
        description=messages.MCP_COMMAND_DESCRIPTION)

    commands.add_parser(
        "config", parents=[shared], help="mostra as configurações em vigor e de onde vêm",
        description="Mostra a pasta de documentos, o modelo, o servidor, o modelo de "
        "embeddings e k em vigor, e de onde cada um veio: padrão, arquivo de configuração, "
        "variável de ambiente ou opção.")
    return parser


def _shared_options(suppress_defaults: bool) -> ArgumentParser:
    """Options valid everywhere. Sub-parsers use SUPPRESS so they never undo an earlier value."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress_defaults else value

    d = DEFAULTS
    parser = ArgumentParser(add_help=False)
    docs = parser.add_argument_group("documentos e índice")
    # None: the environment, the config file or the current folder decide (docai.cli.config).
    docs.add_argument("--docs", type=Path, metavar="PASTA", default=default(None),
                      help=f"pasta de documentação (ou {ENV_DOCS}; padrão: {_CANDIDATES})")
    docs.add_argument("--cache-dir", type=Path, metavar="PASTA", default=default(d.cache_dir),
                      help="onde guardar o índice (ou DOCAI_CACHE_DIR)")
    docs.add_argument("--rebuild", action="store_true", default=default(d.rebuild),
                      help="ignora o índice salvo e reconstrói tudo")
    docs.add_argument("--follow-links", action="store_true", default=default(d.follow_links),
                      help="segue links simbólicos que apontam para fora da pasta de "
                      "documentos (por padrão, são ignorados e listados)")
    docs.add_argument("--chunk-tokens", type=int, metavar="N",
                      default=default(d.chunking.max_tokens),
                      help=f"tamanho máximo de cada trecho, em tokens "
                      f"(padrão: {d.chunking.max_tokens})")
    docs.add_argument("--chunk-overlap", type=int, metavar="N",
                      default=default(d.chunking.overlap_tokens),
                      help=f"tokens repetidos entre trechos vizinhos "
                      f"(padrão: {d.chunking.overlap_tokens})")
    docs.add_argument("--store", metavar="URL", type=_store_url, default=default(None),
                      help="índice compartilhado num PostgreSQL com pgvector "
                      "(postgresql://usuário@servidor/banco; ou DOCAI_STORE; padrão: a pasta "
                      "de cache local)")
    docs.add_argument("--collection", metavar="NOME", default=default(None),
                      help="a coleção dentro do --store (padrão: o nome da pasta de documentos)")
    search = parser.add_argument_group("busca")
    search.add_argument("-k", "--top-k", type=int, metavar="N", default=default(None),
                        help=f"quantos trechos recuperar (padrão: {d.top_k})")
    search.add_argument("--min-coverage", "--min-score", dest="min_coverage", type=_coverage,
                        metavar="X", default=default(d.min_coverage),
                        help="quanto da pergunta os trechos devem cobrir juntos, 0 a 1 "
                        f"(padrão: {DEFAULT_PARAMS.min_coverage:g})")
    search.add_argument("--retrieval", choices=METHODS, default=default(d.retrieval),
                        help=f"método de busca (padrão: {d.retrieval} = BM25 + TF-IDF)")
    # None: the environment or the config file decide (docai.cli.config).
    search.add_argument("--dense", type=_switch, metavar="on|off", default=default(None),
                        help="busca por significado, com um modelo de embeddings, além da "
                        f"busca por palavras (ou {ENV_DENSE}; padrão: on)")
    search.add_argument("--embed-model", type=_model_name, metavar="MODELO",
                        default=default(d.embed_model),
                        help="modelo de embeddings do servidor (ex.: bge-m3), ou auto para o "
                        "melhor instalado no Ollama (padrão: multilingual-e5-small, embutido)")
    search.add_argument("--json", dest="json_output", action="store_true",
                        default=default(d.json_output), help="saída em JSON (search, eval, log)")
    llm = parser.add_argument_group("modelo")
    llm.add_argument("--backend", choices=BACKENDS, default=default(d.backend),
                     help=f"{d.backend} (padrão) ou um servidor compatível com OpenAI")
    llm.add_argument("--model", type=_model_name, metavar="NOME", default=default(None),
                     help=f"modelo a usar (ou {ENV_MODEL}; padrão: {d.model})")
    # None: OLLAMA_HOST decides, then the default (settings_from_args).
    llm.add_argument("--ollama-url", metavar="URL", default=default(None),
                     help=f"endereço do Ollama (padrão: OLLAMA_HOST ou {d.ollama_url})")
    llm.add_argument("--base-url", metavar="URL", default=default(d.base_url),
                     help="endereço do servidor OpenAI (ex.: http://127.0.0.1:8080/v1)")
    llm.add_argument("--num-ctx", type=int, metavar="N", default=default(d.num_ctx),
                     help=f"janela de contexto pedida ao modelo, em tokens (padrão: {d.num_ctx})")
    llm.add_argument("--temperature", type=float, metavar="T", default=default(d.temperature),
                     help=f"temperatura do modelo (padrão: {d.temperature:g})")
    llm.add_argument("--max-tokens", type=int, metavar="N", default=default(d.max_tokens),
                     help="tamanho máximo da resposta, raciocínio incluído, em tokens; uma "
                          f"resposta mais longa é cortada e avisada (padrão: {d.max_tokens})")
    llm.add_argument("--read-timeout", type=float, metavar="SEGUNDOS",
                     default=default(d.read_timeout),
                     help=f"quanto esperar o modelo sem receber nada (padrão: {d.read_timeout:g})")
    llm.add_argument("--show-thinking", action="store_true", default=default(d.show_thinking),
                     help="mostra o raciocínio do modelo, esmaecido")
    llm.add_argument("--no-think", action="store_true", default=default(False),
                     help="pede ao modelo que não raciocine antes de responder")
    output = parser.add_argument_group("saída")
    # None: the config file decides (`log = false`), then the default (on).
    output.add_argument("--no-log", dest="log", action="store_const", const=False,
                        default=default(None), help=messages.ARGS_NO_LOG_HELP)
    output.add_argument("-q", "--quiet", dest="verbosity", action=_Verbosity, const=QUIET,
                        default=default(NORMAL), help="mostra só a resposta")
    output.add_argument("-v", "--verbose", dest="verbosity", action=_Verbosity,
                        const=VERBOSE, default=default(NORMAL),
                        help="mostra também tempos e os trechos recuperados, com notas")
    return parser


class _Verbosity(argparse.Action):
    """-q or -v: both in one command line would silently mean the last one, so it is an
    error (argparse's mutually exclusive groups would lose the options' help heading)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)  # type: ignore[arg-type]

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
        values: object, option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, "_verbosity_option", None)
        if given is not None and given != self.option_strings:
            parser.error(messages.ARGS_OPTION_NOT_TOGETHER.format(
                option="/".join(self.option_strings), other="/".join(given)))
        namespace._verbosity_option = self.option_strings
        setattr(namespace, self.dest, self.const)


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
    return Settings(
        docs_dir=user_folder(docs, values["docs"].origin.describe()),
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
        num_ctx=args.num_ctx,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        read_timeout=args.read_timeout,
        show_thinking=args.show_thinking,
        think=not args.no_think,
        dense=values["dense"].value,
        embed_model=values["embedder"].value,
        retrieval=args.retrieval,
        json_output=args.json_output,
        verbosity=args.verbosity,
        log=values["log"].value,
        store=values["store"].value,
        collection=_collection(args.collection),
        store_hnsw=on_off(environ.get(ENV_STORE_HNSW, "on")) is not False,
    )


def _store_url(text: str) -> str:
    from docai.redaction import redact_url
    from docai.store.connection import is_store_url  # here: psycopg only when a store is set

    if not is_store_url(text):
        raise argparse.ArgumentTypeError(messages.STORE_BAD_URL.format(url=redact_url(text)))
    return text.strip()


def _collection(name: str | None) -> str | None:
    if name is not None and not (0 < len(name) <= 200 and name.isprintable() and name.strip()):
        raise SettingsError(messages.STORE_BAD_COLLECTION.format(name=name))
    return name


def _coverage(text: str) -> float:
    """A share of the question, 0 to 1 (the help says so; above 1 no passage could pass)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:  # also nan
        raise argparse.ArgumentTypeError(messages.OPTION_BAD_COVERAGE.format(value=text))
    return value


def _model_name(text: str) -> str:
    if not is_model_name(text):
        raise argparse.ArgumentTypeError(messages.OPTION_BAD_NAME.format(value=text))
    return text


def _switch(text: str) -> bool:
    if (switched := on_off(text)) is None:
        raise argparse.ArgumentTypeError(messages.OPTION_BAD_SWITCH.format(value=text))
    return switched
