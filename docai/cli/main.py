"""The `docai` command: parse the options (`docai.cli.options.parser`) and run the chosen command.

No business logic lives here, only the way every command ends: a DocaiError is one
`docai: erro:` line and exit status 2, Ctrl-C is 130, output to a full disk one line and 74,
anything unexpected one line and 70.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence

from docai import messages
from docai.cli.options.config import Sourced, sourced_values
from docai.cli.options.parser import (
    build_parser,
    question_as_ask,
    settings_from_args,
    subparsers,
)
from docai.cli.session_log import LAST_SESSION
from docai.cli.terminal_text import one_line
from docai.errors import DocaiError, DocsFolderError, SettingsError
from docai.settings import DOCS_CANDIDATES, ENV_DOCS, Settings, config_file

# A write that failed for want of room (the device, a quota): exit status EX_IOERR.
FULL_DEVICE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
EX_IOERR = 74
# The commands whose output has a JSON form.
JSON_COMMANDS = ("ask", "search", "eval", "log", "status", "store")


def main(argv: Sequence[str] | None = None) -> int:
    _reopen_closed_streams()
    # The bundled tokenizer is read from its package: tiktoken would otherwise copy it to a
    # cache under /tmp first, and on a full or read-only disk every question would fail.
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")
    parser = build_parser()
    args = parser.parse_args(question_as_ask(parser, sys.argv[1:] if argv is None else argv))
    try:
        environ = dict(os.environ)
        values = sourced_values(args, environ)
        settings = settings_from_args(args, environ, values)
        return _dispatch(args, settings, values)
    except DocaiError as error:
        # A message may quote a file name or a server's words: no escape code gets through,
        # and a newline in a name cannot split the error line.
        print(messages.ERROR_PREFIX.format(message=one_line(str(error))), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(messages.INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `docai search ... | head`): nothing left to say.
        sys.stderr.close()
        return 0
    except OSError as error:
        if error.errno not in FULL_DEVICE:
            return _unexpected(error)
        # Output to a full disk (`> /dev/full`, a quota): said in one line, and stdout
        # dropped, so the interpreter's last flush does not fail again on the way out.
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        print(messages.ERROR_PREFIX.format(message=messages.OUTPUT_FAILED.format(
            reason=error.strerror or error)), file=sys.stderr)
        return EX_IOERR
    except Exception as error:  # noqa: BLE001 - last resort: one line, not a traceback
        return _unexpected(error)


def _unexpected(error: Exception) -> int:
    if os.environ.get("DOCAI_DEBUG"):
        raise error
    text = one_line(str(error))
    print(messages.UNEXPECTED_ERROR.format(kind=type(error).__name__, message=text),
          file=sys.stderr)
    return 70


def _dispatch(args: argparse.Namespace, settings: Settings, values: dict[str, Sourced]) -> int:
    if settings.json_output and args.command not in JSON_COMMANDS:
        raise SettingsError(messages.JSON_NOT_SUPPORTED.format(command=args.command or "docai"))
    # Imported lazily: `--help` and usage errors need none of them, and a broken optional
    # stage cannot block the other commands.
    resume = _resume(args)
    if args.command == "log":
        from docai.cli.commands import log

        if args.rename or args.delete or args.clear:
            from docai.cli.commands import log_admin

            return log_admin.run(rename=args.rename, delete=args.delete, clear=args.clear,
                                 yes=args.yes)
        return log.run(settings, values, limit=args.limit, words=args.search)
    if args.command == "config":
        from docai.cli.commands import show_config

        return show_config.run(values)
    if args.command == "store" and args.action is None:  # `docai store` alone: its usage
        print(help_of("store"), end="")
        return 0
    if args.command == "store":
        from docai.cli.commands import store

        return store.run(settings, args.action, args.name, yes=args.yes)
    if values["docs"].value is None and not (settings.store and args.command != "index"):
        candidates = " ou ".join(f"./{path}" for path in DOCS_CANDIDATES)
        raise DocsFolderError(messages.NO_DOCS_FOLDER.format(
            candidates=candidates, env=ENV_DOCS, config=config_file()))
    docs = values["docs"]
    if docs.origin.kind in (messages.ORIGIN_ENV, messages.ORIGIN_FILE) and not (
        settings.docs_dir.exists()
    ):  # the usual message says "--docs", which the user did not give
        raise DocsFolderError(messages.DOCS_MISSING_FROM.format(
            path=settings.docs_dir, origin=docs.origin.describe()))
    if args.command == "ask":
        from docai.cli.commands import ask

        return ask.run(settings, args.question, resume=resume)
    if args.command == "search":
        from docai.cli.commands import search

        return search.run(settings, " ".join(args.question) if args.question else None)
    if args.command == "index":
        from docai.cli.commands import index

        return index.run(settings, embed=args.embed)
    if args.command == "status":
        from docai.cli.commands import status

        return status.run(settings)
    if args.command == "mcp":
        from docai.cli.commands import mcp

        return mcp.run(settings)
    if args.command == "eval":
        from docai.cli.commands import evaluate

        return evaluate.run(settings, args.qa_file)
    from docai.cli.repl import loop as repl

    return repl.run(settings, resume=resume)


def help_of(command: str) -> str:
    """A subcommand's `--help` text."""
    return subparsers(build_parser())[command].format_help()


def _resume(args: argparse.Namespace) -> int | None:
    """The conversation `-c` (the last: LAST_SESSION) or `-r N` continues, before or after
    `ask`; None for a new one."""
    last = args.resume or getattr(args, "ask_continue", False)
    number = args.resume_number if args.resume_number is not None else getattr(
        args, "ask_resume", None)
    if last and number is not None:
        raise SettingsError(messages.CONTINUE_AND_RESUME)
    wanted = LAST_SESSION if last else number
    if wanted is not None and args.command not in (None, "ask"):
        raise SettingsError(messages.CONTINUE_ONLY_INTERACTIVE.format(command=args.command))
    return wanted


def _reopen_closed_streams() -> None:
    """`docai ... >&-` starts Python with sys.stdout None; writing there must not crash."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
