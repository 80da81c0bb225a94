"""The REPL's commands, in one table (`COMMANDS`) that dispatch, `/ajuda` and the
unknown-command hint are all built from, so none of them can forget a command.

Each command reads or changes the `Session` of one REPL run (`cli/session.py`) and prints a
short pt-BR reply; asking is `cli/asking.py`'s, which the loop and `/denovo` share.
Settings stay frozen: a command that changes one derives new Settings with
`dataclasses.replace` and hands them to the Answerer, which keeps its caches (their keys
include k and the model) unless the index itself changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from docai import messages
from docai.answer.conversation import Conversation
from docai.cli.options.suggest import closest
from docai.cli.output.passages import snippet, source_label
from docai.cli.output.report import index_command, store_index_command
from docai.cli.repl.asking import ask
from docai.cli.repl.cited import open_passage, show_passage
from docai.cli.repl.clipboard import copy_last_answer
from docai.cli.repl.editor import edit_question
from docai.cli.repl.info import set_value, show_info
from docai.cli.repl.reopen import reopen
from docai.cli.repl.server_check import (
    ask_server,
    describe_model,
    installed_list,
    watched_backend,
)
from docai.cli.repl.session import Session
from docai.cli.repl.sessions import list_sessions, resume_session
from docai.cli.repl.transcript import save_conversation
from docai.cli.scope import normalised
from docai.cli.terminal_text import one_line, strip_controls
from docai.index.build_report import BuildReport
from docai.index.chunk_table import ChunkTable
from docai.llm.errors import LLMError
from docai.llm.models import find_installed
from docai.loading import display_name
from docai.records import Hit
from docai.redaction import redact_url
from docai.settings import MAX_TOP_K, Settings

CLEAR_SCREEN = "\x1b[H\x1b[2J"  # cursor home, erase the screen


@dataclass(frozen=True, slots=True)
class ReplCommand:
    """One command: the names it answers to (the first is the one help shows; a name
    without a slash is recognised only as a whole line), the argument help shows after
    it, its `messages` summary and the function that runs it with the rest of the line."""

    names: tuple[str, ...]
    argument: str
    summary: str
    handler: Callable[[Session, str], None]

    @property
    def usage(self) -> str:
        return f"{self.names[0]} {self.argument}".rstrip()


def find_command(name: str) -> ReplCommand | None:
    return _BY_NAME.get(name.casefold())


def run_command(line: str, session: Session) -> None:
    """Execute `name args`; an unknown name lists the commands."""
    name, _, argument = line.strip().partition(" ")
    command = find_command(name)
    if command is None:
        close = closest(name, list(_BY_NAME)) if name.startswith("/") else None
        session.say(messages.REPL_DID_YOU_MEAN.format(command=one_line(name), match=close)
                    if close else unknown_command_text(one_line(name)))
        return
    command.handler(session, argument.strip())


def help_text(session: Session) -> str:
    """What `/ajuda` shows: every command with its summary and the current values."""
    settings = session.answerer.settings
    values = {
        "thinking": messages.REPL_SHOWN if session.show_thinking else messages.REPL_HIDDEN,
        "k": settings.top_k,
        "max_k": MAX_TOP_K,
        "model": settings.model,
    }
    width = max(len(command.usage) for command in COMMANDS) + 4
    lines = [f"  {command.usage:<{width}}{command.summary.format(**values)}{_also(command)}"
             for command in COMMANDS]
    return "\n".join([messages.REPL_HELP_HEADER, *lines, messages.REPL_HELP_FOOTER])


def _also(command: ReplCommand) -> str:
    """The other names `/ajuda` lists after a summary (an accentless twin left out)."""
    others = [name for name in command.names[1:]
              if name.casefold() != command.names[0].casefold() and name != "/sessões"]
    return messages.REPL_HELP_ALSO.format(names=", ".join(others)) if others else ""


def unknown_command_text(name: str) -> str:
    slash = [command.usage for command in COMMANDS if command.names[0].startswith("/")]
    words = [command.usage for command in COMMANDS if not command.names[0].startswith("/")]
    return messages.REPL_UNKNOWN_COMMAND.format(
        command=name, commands=", ".join(slash), words=", ".join(words)
    )


def _help(session: Session, _argument: str) -> None:
    session.say(help_text(session))


def _cited(session: Session) -> tuple[Hit, ...]:
    """The sources of the last answer (after `/retomar` or `-c`, the resumed turn's)."""
    last, turn = session.last_answer, session.conversation.last
    return tuple(last.sources if last is not None else turn.sources if turn is not None else ())


def _open(session: Session, argument: str) -> None:
    sources = _cited(session) or _whole_file(session)
    if not sources:
        session.say(messages.REPL_NO_SOURCES)
        return
    open_passage(session, sources, argument or "1")


def _whole_file(session: Session) -> tuple[Hit, ...]:
    """An answer made from a whole file cites that file: `/abrir` opens it at its start."""
    last = session.last_answer
    source = last.fallback_source if last is not None else None
    first = session.answerer.index.chunks.chunk_at(source, 0) if source else None
    return (Hit(first, 0.0),) if first is not None else ()


def _sources(session: Session, argument: str) -> None:
    last, turn = session.last_answer, session.conversation.last
    sources = _cited(session)
    if sources and argument:
        show_passage(session, tuple(sources), argument)
    elif sources:
        for number, hit in enumerate(sources, start=1):
            preview = " ".join(snippet(hit.chunk.text, lines=1))
            line = messages.REPL_SOURCE_DETAIL.format(
                number=number, label=source_label(hit), preview=preview
            )
            session.say(line)
    elif last is not None and last.fallback_source:
        source = display_name(last.fallback_source)
        session.say(messages.ANSWER_FALLBACK_SOURCE.format(source=source))
    elif last is not None or turn is not None:
        session.say(messages.REPL_LAST_WITHOUT_SOURCES)
    else:
        session.say(messages.REPL_NO_SOURCES)


# What `/pensamento` takes to show or hide the reasoning (nothing: it toggles).
THINKING_SWITCHES = {"on": True, "sim": True, "off": False, "não": False, "nao": False}


def _toggle_thinking(session: Session, argument: str) -> None:
    if argument and argument.casefold() not in THINKING_SWITCHES:
        session.say(messages.REPL_BAD_THINKING.format(value=argument))
        return
    session.show_thinking = (THINKING_SWITCHES[argument.casefold()] if argument
                             else not session.show_thinking)
    shown = session.show_thinking
    session.say(messages.REPL_THINKING_ON if shown else messages.REPL_THINKING_OFF)


def _top_k(session: Session, argument: str) -> None:
    answerer = session.answerer
    if not argument:
        session.say(messages.REPL_K_CURRENT.format(k=answerer.settings.top_k, max_k=MAX_TOP_K))
        return
    try:
        k = int(argument)
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_TOP_K:
        session.say(messages.REPL_BAD_K.format(max_k=MAX_TOP_K, value=argument))
        return
    answerer.reconfigure(replace(answerer.settings, top_k=k), answerer.backend)
    session.say(messages.REPL_K_SET.format(k=k))


def _model(session: Session, argument: str) -> None:
    answerer = session.answerer
    if not argument:
        session.say(messages.REPL_MODEL_CURRENT.format(model=answerer.settings.model))
        return
    # A model name is one printable word: an escape sequence in it would reach the terminal
    # in every line that names the model (`ollama pull NAME`), so it is refused here.
    if len(argument.split()) != 1 or not argument.isprintable():
        session.say(messages.REPL_BAD_MODEL.format(value=argument))  # !r: escaped
        return
    settings = replace(answerer.settings, model=argument)
    refusal, note = _check_model(session, settings)
    if refusal is not None:
        session.say(refusal)
        return
    answerer.reconfigure(settings, watched_backend(settings, session.server))
    session.say(messages.REPL_MODEL_SET.format(model=argument))
    if note is not None:
        session.say(note)


def _check_model(session: Session, settings: Settings) -> tuple[str | None, str | None]:
    """(why `settings.model` is refused, a note when it could not be checked): the server is
    asked whether the model is installed (`/api/tags`) and can chat (`/api/show`). Only
    Ollama can say; a server that does not answer leaves the choice to the user."""
    if settings.backend != "ollama":
        return None, None
    name, url = settings.model, redact_url(settings.ollama_url)
    state = session.server.refresh(settings) if session.server else ask_server(settings)
    if state.reachable is False:
        return None, messages.REPL_MODEL_UNCHECKED.format(url=url)
    if state.installed is None:  # it answered, but not as an Ollama lists its models
        note = None if state.problem is None else messages.REPL_MODEL_UNCHECKED_PROBLEM.format(
            problem=state.problem)
        return None, note
    installed = find_installed(name, state.installed)
    if installed is None:
        choices = installed_list(state.installed)
        refusal = messages.REPL_MODEL_NOT_INSTALLED.format(model=name, url=url, installed=choices)
        return refusal, None
    try:
        details = describe_model(settings, installed.name)
    except LLMError:
        return None, None  # listed but not described: let the first question tell
    if details.can_chat is False:
        return messages.REPL_MODEL_CANNOT_CHAT.format(model=name), None
    return None, None


def _reindex(session: Session, _argument: str) -> None:
    answerer = session.answerer
    if answerer.settings.store:
        session.say(store_reindex_line(answerer.settings, answerer.index.chunks))
        return
    before = set(answerer.index.chunks.sources)
    opened = reopen(session)
    if isinstance(opened, str):
        session.say(messages.ERROR_PREFIX.format(message=strip_controls(opened)))
        return
    session.say(reindexed_line(opened.report, before, set(opened.index.chunks.sources),
                               answerer.settings))


def store_reindex_line(settings: Settings, chunks: ChunkTable) -> str:
    """`/reindexar` over the shared store: a client never writes it; the indexer's command."""
    docs = settings.docs_dir if settings.docs_dir.is_dir() else None
    # the indexer's address, not this reader's: a reader's role cannot write
    command = store_index_command(messages.STORE_INDEXER_URL, settings.resolved_collection(),
                                  docs)
    return messages.REPL_REINDEX_STORE.format(
        collection=one_line(settings.resolved_collection()), files=chunks.file_count(),
        chunks=len(chunks), command=command)


def reindexed_line(report: BuildReport, before: set[str], after: set[str],
                   settings: Settings) -> str:
    """`/reindexar`'s one line: the index now, what changed, what was skipped and where to
    read why. New and removed count the files the index gained and lost (a file added but
    skipped is not new: it gave no passage)."""
    parts = [messages.REPL_REINDEXED.format(files=report.files, chunks=report.chunks)]
    new, removed = len(after - before), len(before - after)
    if new or removed or report.changed:
        parts.append(messages.REPL_REINDEXED_CHANGES.format(
            new=new, changed=report.changed, removed=removed))
    else:
        parts.append(messages.REPL_REINDEXED_UNCHANGED)
    if report.skipped:
        parts.append(messages.REPL_REINDEXED_SKIPPED.format(
            count=len(report.skipped),
            command=index_command(settings.docs_folders or settings.docs_dir,
                                  settings.cache_dir)))
    return " ".join(parts)


def _folder(session: Session, argument: str) -> None:
    """`/pasta PATH`: the next questions only about that file or folder (`--only`);
    `/pasta -` (or `/`) the whole collection again; alone, which is in force."""
    answerer = session.answerer
    if not argument:
        only = answerer.settings.only
        session.say(messages.REPL_SCOPE_CURRENT.format(path=one_line(only)) if only
                    else messages.REPL_SCOPE_WHOLE)
        return
    only = None if argument in ("-", "/", ".") else normalised(argument)
    set_scope(session, only)
    _folder(session, "")


def set_scope(session: Session, only: str | None) -> bool:
    """Ask about `only` (None: the whole collection) from now on; False, said, when the
    collection has nothing there (the scope in force stays)."""
    answerer = session.answerer
    before = answerer.settings
    if before.only == only:
        return True
    answerer.reconfigure(replace(before, only=only), answerer.backend)
    opened = reopen(session)
    if isinstance(opened, str):
        answerer.reconfigure(before, answerer.backend)
        session.say(messages.ERROR_PREFIX.format(message=strip_controls(opened)))
        return False
    return True


def _new_conversation(session: Session, _argument: str) -> None:
    session.conversation = Conversation()
    if session.log is not None:
        session.log.start_new()
    session.say(messages.REPL_NEW_CONVERSATION)


def _retry(session: Session, _argument: str) -> None:
    """The last question asked again as a new turn in its place, its answer generated anew
    (the retrieval is the same: only the model's answer was unwanted)."""
    last = session.conversation.last
    if last is None:
        session.say(messages.REPL_NOTHING_TO_RETRY)
        return
    session.conversation = session.conversation.without_last()
    ask(last.question, session, fresh=True)


def _clear_screen(session: Session, _argument: str) -> None:
    """Clear a terminal (as Ctrl-L does at the prompt); a pipe has no screen to clear."""
    if session.interactive and session.out.isatty():
        session.out.write(CLEAR_SCREEN)
        session.out.flush()


def _leave(session: Session, _argument: str) -> None:
    session.leaving = True


# Every command answers to its English name too (the habit of `ollama run`, llm, aichat),
# and each word means one thing: `clear` and `/clear` clear the screen as a shell's `clear`
# does (`/limpar`); a new conversation is `/nova`, `/new` or `/reset`.
COMMANDS: tuple[ReplCommand, ...] = (
    ReplCommand(("/ajuda", "/help", "/?"), "", messages.REPL_HELP_HELP, _help),
    ReplCommand(("/fontes", "/sources"), "[N]", messages.REPL_HELP_SOURCES, _sources),
    ReplCommand(("/abrir", "/open"), "[N]", messages.REPL_HELP_OPEN, _open),
    ReplCommand(("/pensamento", "/think"), "", messages.REPL_HELP_THINKING, _toggle_thinking),
    ReplCommand(("/k",), "N", messages.REPL_HELP_K, _top_k),
    ReplCommand(("/modelo", "/model"), "NOME", messages.REPL_HELP_MODEL, _model),
    ReplCommand(("/reindexar", "/reindex"), "", messages.REPL_HELP_REINDEX, _reindex),
    ReplCommand(("/pasta", "/folder", "/only"), "CAMINHO", messages.REPL_HELP_FOLDER, _folder),
    ReplCommand(("/nova", "/new", "/reset"), "", messages.REPL_HELP_NEW, _new_conversation),
    ReplCommand(("/denovo", "/retry"), "", messages.REPL_HELP_RETRY, _retry),
    ReplCommand(("/limpar", "/clear", "clear"), "", messages.REPL_HELP_CLEAR, _clear_screen),
    ReplCommand(("/sessoes", "/sessões", "/sessions"), "", messages.REPL_HELP_SESSIONS,
                list_sessions),
    ReplCommand(("/retomar", "/resume"), "N", messages.REPL_HELP_RESUME, resume_session),
    ReplCommand(("/salvar", "/save"), "ARQUIVO", messages.REPL_HELP_SAVE, save_conversation),
    ReplCommand(("/copiar", "/copy"), "", messages.REPL_HELP_COPY, copy_last_answer),
    ReplCommand(("/info",), "", messages.REPL_HELP_INFO, show_info),
    ReplCommand(("/set",), "NOME VALOR", messages.REPL_HELP_SET, set_value),
    ReplCommand(("/editar", "/edit"), "", messages.REPL_HELP_EDIT, edit_question),
    ReplCommand(("sair", "exit", "quit", "/sair", "/exit", "/quit", "/bye"), "",
                messages.REPL_HELP_QUIT, _leave),
)
_BY_NAME = {name: command for command in COMMANDS for name in command.names}
