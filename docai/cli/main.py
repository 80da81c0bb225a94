"""Command line: parse options into one Settings object and call the chosen command.

No business logic lives here. Shared options are accepted before or after the subcommand
(`docai --docs D search Q` and `docai search Q --docs D` mean the same).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from docai import __version__, messages
from docai.cli.arguments import ArgumentParser
from docai.errors import DocaiError, SettingsError
from docai.settings import (
    DEFAULT_DOCS_DIR,
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_URL,
    ChunkSettings,
    Settings,
    normalise_ollama_url,
)

DESCRIPTION = """\
docai responde perguntas sobre a sua pasta de documentação (Markdown, HTML, texto)
com um LLM local (Ollama), citando os trechos dos seus arquivos. Nada sai da sua máquina.

Sem subcomando, abre o modo interativo (digite `sair` para terminar)."""

EPILOG = """\
exemplos:
  docai                                   conversa sobre resources/docs
  docai --docs ~/projeto/docs             conversa sobre outra pasta
  docai ask "Como instalo o docai?"       uma resposta e sai
  docai search "num_ctx" -k 5 --json      só a busca, em JSON
  docai index --rebuild                   reconstrói o índice
  docai eval tests/eval/docai.jsonl       mede a qualidade da busca

variáveis de ambiente:
  OLLAMA_HOST       endereço do Ollama (padrão 127.0.0.1:11434)
  DOCAI_CACHE_DIR   onde guardar os índices (padrão: a pasta de cache do usuário)
"""


# The commands whose output has a JSON form.
JSON_COMMANDS = ("search", "eval")


def _shared_options(suppress_defaults: bool) -> argparse.ArgumentParser:
    """Options valid everywhere. Sub-parsers use SUPPRESS so they never undo an earlier value."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress_defaults else value

    parser = argparse.ArgumentParser(add_help=False)
    docs = parser.add_argument_group("documentos e índice")
    docs.add_argument("--docs", type=Path, metavar="PASTA", default=default(DEFAULT_DOCS_DIR),
                      help="pasta de documentação (padrão: resources/docs)")
    docs.add_argument("--cache-dir", type=Path, metavar="PASTA", default=default(None),
                      help="onde guardar o índice (ou DOCAI_CACHE_DIR)")
    docs.add_argument("--rebuild", action="store_true", default=default(False),
                      help="ignora o índice salvo e reconstrói tudo")
    docs.add_argument("--chunk-tokens", type=int, metavar="N", default=default(512),
                      help="tamanho máximo de cada trecho, em tokens (padrão: 512)")
    docs.add_argument("--chunk-overlap", type=int, metavar="N", default=default(48),
                      help="tokens repetidos entre trechos vizinhos (padrão: 48)")
    search = parser.add_argument_group("busca")
    search.add_argument("-k", "--top-k", type=int, metavar="N", default=default(3),
                        help="quantos trechos recuperar (padrão: 3)")
    search.add_argument("--min-score", type=float, metavar="X", default=default(None),
                        help="quanto da pergunta os trechos cobrem, 0 a 1 (padrão: calibrado)")
    search.add_argument("--retrieval", choices=("hybrid", "tfidf", "bm25"),
                        default=default("hybrid"),
                        help="método de busca (padrão: hybrid = BM25 + TF-IDF)")
    search.add_argument("--embed-model", metavar="MODELO", default=default(None),
                        help="ativa busca densa com embeddings do Ollama (ex.: nomic-embed-text)")
    search.add_argument("--json", dest="json_output", action="store_true",
                        default=default(False), help="saída em JSON (search, eval)")
    llm = parser.add_argument_group("modelo")
    llm.add_argument("--backend", choices=("ollama", "openai"), default=default("ollama"),
                     help="ollama (padrão) ou um servidor compatível com OpenAI")
    llm.add_argument("--model", metavar="NOME", default=default(DEFAULT_MODEL),
                     help=f"modelo a usar (padrão: {DEFAULT_MODEL})")
    llm.add_argument("--ollama-url", metavar="URL", default=default(None),
                     help=f"endereço do Ollama (padrão: OLLAMA_HOST ou {DEFAULT_OLLAMA_URL})")
    llm.add_argument("--base-url", metavar="URL", default=default(None),
                     help="endereço do servidor OpenAI (ex.: http://127.0.0.1:8080/v1)")
    llm.add_argument("--num-ctx", type=int, metavar="N", default=default(8192),
                     help="janela de contexto pedida ao modelo, em tokens (padrão: 8192)")
    llm.add_argument("--temperature", type=float, metavar="T", default=default(0.2),
                     help="temperatura do modelo (padrão: 0.2)")
    llm.add_argument("--read-timeout", type=float, metavar="SEGUNDOS", default=default(300.0),
                     help="quanto esperar o modelo sem receber nada (padrão: 300)")
    llm.add_argument("--show-thinking", action="store_true", default=default(False),
                     help="mostra o raciocínio do modelo, esmaecido")
    llm.add_argument("--no-think", action="store_true", default=default(False),
                     help="pede ao modelo que não raciocine antes de responder")
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="docai",
        description=DESCRIPTION,
        epilog=EPILOG,
        parents=[_shared_options(suppress_defaults=False)],
    )
    parser.add_argument("--version", action="version", version=f"docai {__version__}",
                        help=messages.ARGS_VERSION_HELP)
    shared = _shared_options(suppress_defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMANDO")

    ask = commands.add_parser("ask", parents=[shared], help="responde uma pergunta e sai",
                              description="Responde uma pergunta com fontes e sai.")
    # Several words are joined: `docai ask como troco o modelo` asks what it says.
    ask.add_argument("question", metavar="PERGUNTA", nargs="+",
                     help="a pergunta, entre aspas ou em várias palavras")

    search = commands.add_parser(
        "search", parents=[shared], help="mostra os trechos que a busca encontra",
        description="Mostra os trechos recuperados para uma pergunta, sem chamar o modelo. "
        "Sem PERGUNTA, lê uma pergunta por linha da entrada padrão (JSON Lines com --json).")
    search.add_argument("question", metavar="PERGUNTA", nargs="*",
                        help="a pergunta (sem ela, uma por linha da entrada padrão)")

    commands.add_parser("index", parents=[shared], help="constrói ou atualiza o índice",
                        description="Constrói ou atualiza o índice e mostra o que mudou.")

    evaluate = commands.add_parser(
        "eval", parents=[shared], help="mede a qualidade da busca com perguntas e respostas",
        description="Lê um arquivo JSON Lines de perguntas com respostas esperadas e mostra "
        "hit@1, hit@3, hit@10 e MRR@10.")
    evaluate.add_argument("qa_file", type=Path, metavar="QA.jsonl")
    return parser


def settings_from_args(args: argparse.Namespace, environ: dict[str, str]) -> Settings:
    ollama_url = normalise_ollama_url(args.ollama_url or environ.get("OLLAMA_HOST", ""))
    return Settings(
        docs_dir=args.docs.expanduser(),
        cache_dir=args.cache_dir.expanduser() if args.cache_dir else None,
        rebuild=args.rebuild,
        top_k=args.top_k,
        min_score=args.min_score,
        chunking=ChunkSettings(max_tokens=args.chunk_tokens, overlap_tokens=args.chunk_overlap),
        backend=args.backend,
        model=args.model,
        ollama_url=ollama_url.rstrip("/"),
        base_url=args.base_url,
        num_ctx=args.num_ctx,
        temperature=args.temperature,
        read_timeout=args.read_timeout,
        show_thinking=args.show_thinking,
        think=not args.no_think,
        embed_model=args.embed_model,
        retrieval=args.retrieval,
        json_output=args.json_output,
    )


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if settings.json_output and args.command not in JSON_COMMANDS:
        raise SettingsError(messages.JSON_NOT_SUPPORTED.format(command=args.command or "docai"))
    # Imported lazily so `docai --help` stays fast and a broken optional stage cannot block it.
    if args.command == "ask":
        from docai.cli.commands import ask

        return ask.run(settings, " ".join(args.question))
    if args.command == "search":
        from docai.cli.commands import search

        return search.run(settings, " ".join(args.question) if args.question else None)
    if args.command == "index":
        from docai.cli.commands import index

        return index.run(settings)
    if args.command == "eval":
        from docai.cli.commands import evaluate

        return evaluate.run(settings, args.qa_file)
    from docai.cli import repl

    return repl.run(settings)


def main(argv: Sequence[str] | None = None) -> int:
    _reopen_closed_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args, dict(os.environ))
        return _dispatch(args, settings)
    except DocaiError as error:
        print(messages.ERROR_PREFIX.format(message=error), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(messages.INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `docai search ... | head`): nothing left to say.
        sys.stderr.close()
        return 0
    except Exception as error:  # noqa: BLE001 - last resort: one line, not a traceback
        if os.environ.get("DOCAI_DEBUG"):
            raise
        print(messages.UNEXPECTED_ERROR.format(kind=type(error).__name__, message=error),
              file=sys.stderr)
        return 70


def _reopen_closed_streams() -> None:
    """`docai ... >&-` starts Python with sys.stdout None; writing there must not crash."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
