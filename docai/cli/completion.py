"""Tab completion at the REPL prompt: slash commands, and model names after `/modelo`.

Completion runs while the user types, so it never asks the network: model names come from
what the server watch already knows (the start-up check, refreshed by each `/modelo`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from docai.cli.repl_commands import COMMANDS, MODEL_COMMAND, find_command


def command_names() -> list[str]:
    return sorted({name for command in COMMANDS for name in command.names if name[0] == "/"})


class ReplCompleter(Completer):
    """Completes the first word from the command table and `/modelo`'s argument from
    `model_names()`."""

    def __init__(self, model_names: Callable[[], Iterable[str]]) -> None:
        self._model_names = model_names

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor.lstrip()
        if " " not in typed:
            if typed.startswith("/"):
                for name in command_names():
                    if name.startswith(typed.casefold()):
                        # With its space, as a shell completes a word: the argument follows.
                        yield Completion(name + " ", start_position=-len(typed), display=name)
            return
        name, _, rest = typed.partition(" ")
        command = find_command(name)
        partial = rest.lstrip()
        if command is None or command.names[0] != MODEL_COMMAND or " " in partial:
            return
        for model in self._model_names():
            if model.startswith(partial):
                yield Completion(model, start_position=-len(partial))
