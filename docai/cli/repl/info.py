"""`/info`: everything in force, on one screen; `/set NOME VALOR`: change what may change
mid-session (k, num_ctx, temperature, thinking; `embed off|on` pauses the background pass).

`/set` checks a value exactly as the option does: the new Settings are built with
`dataclasses.replace`, whose checks are the ones `-k`, `--num-ctx` and `--temperature` go
through, so the message is the option's own.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from docai import messages
from docai.cli.options.config import on_off
from docai.cli.output.folder_status import describe, summary_lines
from docai.cli.startup import embedder_label
from docai.cli.terminal_text import one_line
from docai.errors import DocaiError, SettingsError
from docai.index.chunk_table import ChunkTable
from docai.index.reuse import survey
from docai.settings import Settings, redact_url

if TYPE_CHECKING:  # the command table imports this module
    from docai.cli.repl.session import Session


def info_text(session: Session) -> str:
    answerer = session.answerer
    settings = answerer.settings
    chunks = answerer.index.chunks
    url = settings.ollama_url if settings.backend == "ollama" else settings.base_url or ""
    coverage = (settings.min_coverage if settings.min_coverage is not None
                else answerer.index.params.min_coverage)
    lines = [
        messages.INFO_MODEL.format(model=one_line(settings.model), backend=settings.backend,
                                   url=one_line(redact_url(url))),
        _index_line(settings),
        *_folder_lines(settings, chunks),
        messages.INFO_RETRIEVAL.format(method=settings.retrieval, k=settings.top_k,
                                       coverage=coverage),
        _dense_line(session, len(chunks)),
        messages.INFO_CONTEXT.format(num_ctx=settings.num_ctx, temperature=settings.temperature,
                                     max_tokens=settings.max_tokens),
        messages.INFO_THINKING.format(
            requested=_thinking_requested(settings.think),
            shown=messages.REPL_SHOWN if session.show_thinking else messages.REPL_HIDDEN),
        _log_line(session),
        messages.INFO_CONVERSATION.format(turns=len(session.conversation.turns)),
        messages.INFO_SET_HINT,
    ]
    return "\n".join(lines)


def show_info(session: Session, _argument: str) -> None:
    session.say(info_text(session))


@dataclass(frozen=True, slots=True)
class Settable:
    """One setting `/set` changes: how its text is read and how Settings take it."""

    parse: Callable[[str], Any]
    apply: Callable[[Settings, Any], Settings]
    kind: str  # what the value must be, for the message when it is not


def _switch(text: str) -> bool:
    switched = on_off(text)
    if switched is None:
        raise ValueError(text)
    return switched


def _instructions(text: str) -> str | None:
    """`/set system TEXT`: the user's own instructions; `off` removes them."""
    return None if text.strip().casefold() in ("off", "-") else text.strip()


SETTABLE: dict[str, Settable] = {
    "k": Settable(int, lambda s, v: replace(s, top_k=v), messages.ARGS_TYPE_INT),
    "num_ctx": Settable(int, lambda s, v: replace(s, num_ctx=v), messages.ARGS_TYPE_INT),
    "max_tokens": Settable(int, lambda s, v: replace(s, max_tokens=v), messages.ARGS_TYPE_INT),
    "temperature": Settable(float, lambda s, v: replace(s, temperature=v),
                            messages.ARGS_TYPE_FLOAT),
    "thinking": Settable(_switch, lambda s, v: replace(s, think=v), ""),
    "system": Settable(_instructions, lambda s, v: replace(s, system_prompt=v), ""),
}
# `/set embed off|on`: the background pass, not a setting of the answers.
EMBED = "embed"
ALIASES = {"embeddings": EMBED, "top_k": "k", "temperatura": "temperature",
           "pensamento": "thinking", "think": "thinking", "ctx": "num_ctx"}


def set_value(session: Session, argument: str) -> None:
    names = ", ".join([*SETTABLE, EMBED])
    name, _, value = argument.partition(" ")
    value = value.strip()
    if not name or not value:
        session.say(messages.SET_USAGE.format(names=names))
        return
    key = name.casefold().replace("-", "_")
    key = ALIASES.get(key, key)
    if key == EMBED:
        _set_embed(session, value)
        return
    settable = SETTABLE.get(key)
    if settable is None:
        shown = one_line(name)
        close = difflib.get_close_matches(key, [*SETTABLE, *ALIASES], n=1, cutoff=0.6)
        session.say(messages.SET_UNKNOWN_CLOSE.format(
            name=shown, match=ALIASES.get(close[0], close[0]), names=names) if close
            else messages.SET_UNKNOWN.format(name=shown, names=names))
        return
    try:
        parsed = settable.parse(value)
    except ValueError:
        problem = (messages.SET_BAD_SWITCH.format(value=value) if not settable.kind
                   else messages.SET_ERROR.format(name=key, message=messages.ARGS_INVALID_VALUE
                                                  .format(value=repr(value), kind=settable.kind)))
        session.say(problem)
        return
    answerer = session.answerer
    try:
        settings = settable.apply(answerer.settings, parsed)
    except SettingsError as error:
        session.say(messages.SET_ERROR.format(name=key, message=error))
        return
    answerer.reconfigure(settings, answerer.backend)
    shown_value = _shown(parsed)
    session.say(messages.SET_DONE.format(name=key, value=shown_value))


def _set_embed(session: Session, value: str) -> None:
    """`/set embed off|on`: pause or resume the background pass (not what a question
    embeds for itself, a few windows)."""
    switched = on_off(value)
    if switched is None:
        session.say(messages.SET_EMBED_BAD_SWITCH.format(value=one_line(value)))
        return
    background = session.background
    if background is None or not background.pending():
        session.say(messages.SET_EMBED_NO_PASS)
        return
    if switched:
        background.resume()
        session.say(messages.SET_EMBED_RESUMED)
    else:
        background.pause()
        session.say(messages.SET_EMBED_PAUSED)


def _shown(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return "on" if value else "off"
    if isinstance(value, str):
        return repr(one_line(value))
    return f"{value:g}"


def _folder_lines(settings: Settings, chunks: ChunkTable) -> list[str]:
    """The folder(s) and what their index holds, as `docai status` says it (the skipped
    files counted, not listed); the store's collection: its folder, if any, and chunks."""
    if not settings.store:
        try:
            status = describe(survey(settings), settings, embedded=False)
        except DocaiError:  # the folder went away meanwhile: what the session holds
            pass
        else:
            return [f"  {line}" for line in summary_lines(status, each_skipped=False)]
    docs = (messages.INFO_DOCS_NONE if settings.store and not settings.docs_dir.is_dir()
            else messages.INFO_DOCS.format(docs=one_line(settings.shown_docs())))
    return [docs, messages.INFO_INDEX.format(chunks=len(chunks), files=chunks.file_count())]


def _index_line(settings: Settings) -> str:
    if settings.store:
        return messages.INFO_STORE.format(collection=one_line(settings.resolved_collection()),
                                          store=one_line(redact_url(settings.store)))
    return messages.INFO_CACHE.format(cache=one_line(str(settings.resolved_cache_dir())))


def _dense_line(session: Session, chunks: int) -> str:
    dense = session.answerer.dense
    if dense is None:
        return messages.INFO_DENSE_OFF
    if not dense.active:
        return messages.INFO_DENSE_FAILED
    embedded = dense.embedded_chunks()
    line = messages.INFO_DENSE.format(
        embedder=embedder_label(dense.embedder.name), embedded=embedded, chunks=chunks,
        percent=100 * embedded // chunks if chunks else 100)
    if embedded >= chunks:
        return line
    background = session.background
    paused = background is not None and background.paused
    return line + (messages.INFO_DENSE_PAUSED if paused else messages.INFO_DENSE_IMPROVING)


def _thinking_requested(think: bool | None) -> str:
    if think is None:
        return messages.INFO_THINKING_SERVER
    return messages.INFO_THINKING_ASKED if think else messages.INFO_THINKING_NOT_ASKED


def _log_line(session: Session) -> str:
    log = session.log
    if log is None:
        return messages.INFO_LOG_OFF
    if log.path is None:
        return messages.INFO_LOG_BROKEN
    return messages.INFO_LOG_ON.format(path=one_line(str(log.path)))
