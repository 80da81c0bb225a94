"""Tab completion at the REPL prompt: slash commands, then each command's argument.

Arguments complete from what the REPL already knows, never from the network (completion
runs while the user types): model names after `/modelo` from the server watch (the start-up
check, refreshed by each `/modelo`), setting names after `/set`, `on`/`off` after
`/pensamento`, the numbers `/sessoes` listed after `/retomar`, file paths after `/salvar`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from docai.cli.repl.command_table import COMMANDS, find_command

# The words an argument may be, given when Tab is pressed; keyed by the command's name.
ArgumentChoices = Callable[[], Iterable[str]]
SAVE_COMMAND = "/salvar"  # its argument is a file path


def command_names(typed: str = "/") -> list[str]:
    """The slash names starting with `typed`, one per command (its first such name): `/mo`
    completes to `/modelo`, not to a choice between it and its English `/model`."""
    found = {next((name for name in command.names
                   if name[0] == "/" and name.startswith(typed)), None)
             for command in COMMANDS}
    return sorted(name for name in found if name is not None)


class ReplCompleter(Completer):
    """Completes the first word from the command table, and the argument of the commands
    in `arguments` (and `/salvar`'s path)."""

    def __init__(self, arguments: Mapping[str, ArgumentChoices]) -> None:
        self._arguments = arguments
        self._paths = PathCompleter(expanduser=True)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor.lstrip()
        if " " not in typed:
            if typed.startswith("/"):
                for name in command_names(typed.casefold()):
                    if name.startswith(typed.casefold()):
                        # With its space, as a shell completes a word: the argument follows.
                        yield Completion(name + " ", start_position=-len(typed), display=name)
            return
        name, _, rest = typed.partition(" ")
        command = find_command(name)
        partial = rest.lstrip()
        if command is None:
            return
        if command.names[0] == SAVE_COMMAND:
            yield from self._paths.get_completions(Document(partial), complete_event)
            return
        choices = self._arguments.get(command.names[0])
        if choices is None or " " in partial:
            return
        for choice in choices():
            if choice.startswith(partial):
                yield Completion(choice, start_position=-len(partial))
