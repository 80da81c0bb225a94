"""What a REPL run knows about the model server, learnt without making anyone wait.

At start a background thread asks Ollama once, briefly, for its models (`/api/tags`): the
REPL opens and searches meanwhile, and the answer becomes one line saying whether the
server answers and the model is installed. Every answer keeps that knowledge current:
once the server is known to be down, a question tries it once with a short connect timeout
(`make_backend(quick=True)`) instead of several times with backoff, so the user learns in
a moment, not seconds, and as soon as the server is back it answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from docai import messages
from docai.llm.backends import make_backend
from docai.llm.base import ChatBackend, ClosedOnExit
from docai.llm.errors import LLMError, ServerUnreachable
from docai.llm.events import Event, Message
from docai.llm.http import QUICK_CONNECT_TIMEOUT
from docai.llm.models import InstalledModel, ModelDetails, find_installed, short_name
from docai.llm.ollama import OllamaClient
from docai.redaction import redact_url
from docai.settings import VERBOSE, Settings

# Seconds a question about the server's models may take: it lists files on the server's disk.
CHECK_READ_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class ServerState:
    """`reachable` None: not known yet (or not asked: only Ollama lists its models).
    `installed` None: the list is unknown. `problem`: an error other than "down"."""

    reachable: bool | None = None
    installed: tuple[InstalledModel, ...] | None = None
    problem: LLMError | None = None


def quick_client(settings: Settings, model: str | None = None) -> OllamaClient:
    """An Ollama client that asks once and gives up soon: for questions about the server."""
    return OllamaClient(
        settings.ollama_url, model or settings.model, connect_timeout=QUICK_CONNECT_TIMEOUT,
        read_timeout=CHECK_READ_TIMEOUT, retries=0,
    )


def ask_server(settings: Settings) -> ServerState:
    """The server's state, asked once (never raises)."""
    if settings.backend != "ollama":
        return ServerState()
    with quick_client(settings) as client:
        try:
            return ServerState(True, client.list_models())
        except ServerUnreachable:
            return ServerState(False)
        except LLMError as error:
            return ServerState(True, None, error)


def describe_model(settings: Settings, name: str) -> ModelDetails:
    """`/api/show` for `name`, asked once; raises the client's LLMError (ModelNotFound...)."""
    with quick_client(settings, name) as client:
        return client.show(name)


class ServerWatch:
    """The server's state for one REPL run, shared by the start-up check, the answers, the
    `/modelo` check and Tab completion (which must never wait on the network)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._state = ServerState()
        self._checked = threading.Event()
        self._listeners: list[Callable[[ServerState], None]] = []

    def start(self) -> None:
        threading.Thread(target=self._first_check, name="docai-server-check", daemon=True).start()

    @property
    def state(self) -> ServerState:
        with self._lock:
            return self._state

    def wait_checked(self) -> bool:
        """Wait, at most as long as the check itself may take, for it to end."""
        return self._checked.wait(QUICK_CONNECT_TIMEOUT + CHECK_READ_TIMEOUT)

    def when_checked(self, listener: Callable[[ServerState], None]) -> None:
        """Call `listener(state)` once the start-up check ends (at once if it has)."""
        with self._lock:
            if not self._checked.is_set():
                self._listeners.append(listener)
                return
            state = self._state
        listener(state)

    def known_down(self) -> bool:
        return self.state.reachable is False

    def mark(self, *, reachable: bool) -> None:
        with self._lock:
            keep = self._state.installed if reachable else None
            self._state = ServerState(reachable, keep)

    def refresh(self, settings: Settings) -> ServerState:
        """Ask again now (for `/modelo`), and remember the answer."""
        state = ask_server(settings)
        with self._lock:
            self._settings = settings
            self._state = state
        return state

    def model_names(self) -> list[str]:
        """The installed models as a user types them (for Tab completion)."""
        installed = self.state.installed or ()
        return sorted({short_name(model.name) for model in installed})

    def _first_check(self) -> None:
        try:
            state = ask_server(self._settings)
        except Exception:  # noqa: BLE001 - whatever went wrong, the REPL must not wait on it
            state = ServerState(None)
        with self._lock:
            if self._state.reachable is None:  # an answer in the meantime knows better
                self._state = state
            state = self._state
            listeners, self._listeners = self._listeners, []
            self._checked.set()
        for listener in listeners:
            listener(state)


def start_note(state: ServerState, settings: Settings) -> str | None:
    """The line the REPL shows once the start-up check has ended (None: nothing to say)."""
    url = redact_url(settings.ollama_url)
    model = settings.model
    if state.reachable is None:
        return None
    if not state.reachable:
        return messages.REPL_SERVER_DOWN.format(url=url)
    if state.problem is not None:
        return messages.REPL_SERVER_PROBLEM.format(error=state.problem)
    if state.installed is None:
        return None
    if find_installed(model, state.installed) is None:
        return messages.REPL_SERVER_MODEL_MISSING.format(
            model=model, url=url, installed=installed_list(state.installed))
    # All is well: said with -v only (a start says what needs doing, not what works).
    if settings.verbosity < VERBOSE:
        return None
    return messages.REPL_SERVER_READY.format(url=url, model=model)


def installed_list(installed: Sequence[InstalledModel]) -> str:
    names = sorted({short_name(model.name) for model in installed})
    return ", ".join(names) if names else messages.REPL_NO_MODELS_INSTALLED


class WatchedBackend(ClosedOnExit):
    """A ChatBackend that tells the watch whether the server answered, and asks a server
    known to be down once and briefly instead of retrying with backoff."""

    def __init__(self, settings: Settings, watch: ServerWatch) -> None:
        self._backend = make_backend(settings)
        self._quick = make_backend(settings, quick=True)
        self._watch = watch

    @property
    def name(self) -> str:
        return self._backend.name

    @property
    def model(self) -> str:
        return self._backend.model

    def stream_chat(
        self, messages: Sequence[Message], *, think: bool | None, num_ctx: int,
        temperature: float, max_tokens: int | None = None,
    ) -> Iterator[Event]:
        backend = self._quick if self._watch.known_down() else self._backend
        stream = backend.stream_chat(messages, think=think, num_ctx=num_ctx,
                                     temperature=temperature, max_tokens=max_tokens)
        return self._watched(stream)

    def _watched(self, stream: Iterator[Event]) -> Iterator[Event]:
        try:
            for event in stream:
                self._watch.mark(reachable=True)
                yield event
        except ServerUnreachable:
            self._watch.mark(reachable=False)
            raise
        except LLMError:
            self._watch.mark(reachable=True)  # it answered, with an error
            raise
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    def close(self) -> None:
        self._backend.close()
        self._quick.close()


def watched_backend(settings: Settings, watch: ServerWatch | None) -> ChatBackend:
    """The backend a REPL answers with: watched when the REPL keeps a watch."""
    return make_backend(settings) if watch is None else WatchedBackend(settings, watch)
