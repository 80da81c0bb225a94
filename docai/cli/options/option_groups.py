"""The options commands share, in groups, and which command takes which.

Each group is one kind of option: where the docs and the index are, how to search, which
model answers, what to print. Every parser takes every group, so any option may come before
or after the sub-command (`docai --docs D search Q`, `docai search Q --docs D`) and scripts
written for one command keep working; but each sub-command's `--help` lists only the groups
it uses (`COMMAND_GROUPS`): `docai log --help` does not teach `--temperature`.
Defaults and choices come from `docai.settings`, so help cannot disagree with docai.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from docai import messages
from docai.cli.options.arguments import ArgumentParser
from docai.cli.options.config import is_model_name, on_off
from docai.retrieval.params import DEFAULT_PARAMS, METHODS
from docai.settings import (
    BACKENDS,
    DOCS_CANDIDATES,
    ENV_DENSE,
    ENV_DOCS,
    ENV_MODEL,
    NORMAL,
    QUIET,
    VERBOSE,
    Settings,
)

DEFAULTS = Settings()
CANDIDATES = " ou ".join(f"./{path}" for path in DOCS_CANDIDATES)
Default = Callable[[object], object]

DOCS, INDEX, SEARCH, MODEL, OUTPUT = "docs", "index", "search", "model", "output"
ALL_GROUPS = (DOCS, INDEX, SEARCH, MODEL, OUTPUT)
# What each sub-command reads: `docai log` only filters by folder and prints JSON.
COMMAND_GROUPS: dict[str, tuple[str, ...]] = {
    "ask": ALL_GROUPS,
    "search": (DOCS, INDEX, SEARCH, OUTPUT),
    "index": (DOCS, INDEX, SEARCH, OUTPUT),
    "eval": (DOCS, INDEX, SEARCH, OUTPUT),
    "mcp": (DOCS, INDEX, SEARCH, OUTPUT),
    "log": (DOCS, OUTPUT),
    "config": (DOCS, SEARCH, MODEL),
    "status": (DOCS, INDEX, OUTPUT),
    "store": (INDEX, OUTPUT),
}


def shared_options(shown: Iterable[str] = ALL_GROUPS, *,
                   suppress_defaults: bool = False) -> ArgumentParser:
    """A parent parser with every shared option, those outside the `shown` groups left out
    of help and usage. Sub-parsers use SUPPRESS defaults, so they never undo a value given
    before the sub-command."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress_defaults else value

    parser = ArgumentParser(add_help=False)
    wanted = set(shown)
    for name, add in _GROUPS:
        before = len(parser._actions)
        add(parser, default)
        if name not in wanted:
            for action in parser._actions[before:]:
                action.help = argparse.SUPPRESS
    return parser


def _docs_options(parser: ArgumentParser, default: Default) -> None:
    docs = parser.add_argument_group("documentos e índice")
    # None: the environment, the config file or the current folder decide (options/config.py).
    docs.add_argument("--only", metavar="CAMINHO", default=default(None),
                      help=messages.ARGS_ONLY_HELP)
    docs.add_argument("--docs", type=Path, metavar="PASTA", action="append",
                      default=default(None),
                      help=f"pasta de documentação (ou {ENV_DOCS}; padrão: {CANDIDATES}); "
                      "repita para ler várias pastas como uma coleção")


def _index_options(parser: ArgumentParser, default: Default) -> None:
    d = DEFAULTS
    docs = parser.add_argument_group("índice")
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
                      help="a coleção dentro do --store (padrão: DOCAI_COLLECTION, collection no "
                      "config.toml, ou o nome da pasta de documentos)")


def _search_options(parser: ArgumentParser, default: Default) -> None:
    d = DEFAULTS
    search = parser.add_argument_group("busca")
    search.add_argument("-k", "--top-k", type=int, metavar="N", default=default(None),
                        help=f"quantos trechos recuperar (padrão: {d.top_k})")
    search.add_argument("--min-coverage", "--min-score", dest="min_coverage", type=_coverage,
                        metavar="X", default=default(d.min_coverage),
                        help="quanto da pergunta os trechos devem cobrir juntos, 0 a 1 "
                        f"(padrão: {DEFAULT_PARAMS.min_coverage:g})")
    search.add_argument("--retrieval", choices=METHODS, default=default(d.retrieval),
                        help=f"método de busca (padrão: {d.retrieval} = BM25 + TF-IDF)")
    # None: the environment or the config file decide (docai.cli.options.config).
    search.add_argument("--dense", type=_switch, metavar="on|off", default=default(None),
                        help="busca por significado, com um modelo de embeddings, além da "
                        f"busca por palavras (ou {ENV_DENSE}; padrão: on)")
    search.add_argument("--embed-model", type=_model_name, metavar="MODELO",
                        default=default(d.embed_model),
                        help="modelo de embeddings do servidor (ex.: bge-m3), ou auto para o "
                        "melhor instalado no Ollama (padrão: multilingual-e5-small, embutido)")


def _model_options(parser: ArgumentParser, default: Default) -> None:
    d = DEFAULTS
    llm = parser.add_argument_group("modelo")
    llm.add_argument("--backend", choices=BACKENDS, default=default(d.backend),
                     help=f"{d.backend} (padrão) ou um servidor compatível com OpenAI")
    llm.add_argument("-m", "--model", type=_model_name, metavar="NOME", default=default(None),
                     help=f"modelo a usar (ou {ENV_MODEL}; padrão: {d.model})")
    # None: OLLAMA_HOST decides, then the default (settings_from_args).
    llm.add_argument("--ollama-url", metavar="URL", default=default(None),
                     help=f"endereço do Ollama (padrão: OLLAMA_HOST ou {d.ollama_url})")
    llm.add_argument("--base-url", metavar="URL", default=default(d.base_url),
                     help="endereço do servidor OpenAI (ex.: http://127.0.0.1:8080/v1)")
    # None for these five: the config file decides, then the default (options/config.py).
    llm.add_argument("--num-ctx", type=int, metavar="N", default=default(None),
                     help=f"janela de contexto pedida ao modelo, em tokens (padrão: {d.num_ctx})")
    llm.add_argument("--temperature", type=float, metavar="T", default=default(None),
                     help=f"temperatura do modelo (padrão: {d.temperature:g})")
    llm.add_argument("--max-tokens", type=int, metavar="N", default=default(None),
                     help="tamanho máximo da resposta, raciocínio incluído, em tokens; uma "
                          f"resposta mais longa é cortada e avisada (padrão: {d.max_tokens})")
    llm.add_argument("--read-timeout", type=float, metavar="SEGUNDOS",
                     default=default(d.read_timeout),
                     help=f"quanto esperar o modelo sem receber nada (padrão: {d.read_timeout:g})")
    llm.add_argument("--show-thinking", action="store_const", const=True, default=default(None),
                     help="mostra o raciocínio do modelo, esmaecido")
    llm.add_argument("--no-think", dest="think", action="store_const", const=False,
                     default=default(None),
                     help="pede ao modelo que não raciocine antes de responder")
    llm.add_argument("--system", metavar="TEXTO", default=default(None),
                     help=messages.ARGS_SYSTEM_HELP)
    # None: the config file decides (`log = false`), then the default (on).
    llm.add_argument("--no-log", dest="log", action="store_const", const=False,
                     default=default(None), help=messages.ARGS_NO_LOG_HELP)


def _output_options(parser: ArgumentParser, default: Default) -> None:
    d = DEFAULTS
    output = parser.add_argument_group("saída")
    output.add_argument("--json", dest="json_output", action="store_true",
                        default=default(d.json_output),
                        help="saída em JSON (ask, search, eval, log)")
    output.add_argument("-q", "--quiet", dest="verbosity", action=_Verbosity, const=QUIET,
                        default=default(NORMAL), help="mostra só a resposta")
    output.add_argument("-v", "--verbose", dest="verbosity", action=_Verbosity,
                        const=VERBOSE, default=default(NORMAL),
                        help="mostra também tempos e os trechos recuperados, com notas")


_GROUPS: tuple[tuple[str, Callable[[ArgumentParser, Default], None]], ...] = (
    (DOCS, _docs_options), (INDEX, _index_options), (SEARCH, _search_options),
    (MODEL, _model_options), (OUTPUT, _output_options),
)


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


def _store_url(text: str) -> str:
    from docai.redaction import redact_url
    from docai.store.connection import is_store_url  # here: psycopg only when a store is set

    if not is_store_url(text):
        raise argparse.ArgumentTypeError(messages.STORE_BAD_URL.format(url=redact_url(text)))
    return text.strip()


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
