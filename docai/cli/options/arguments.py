"""argparse speaking pt-BR: translated help headings and errors, and a short error output.

argparse writes its own messages in English ("invalid int value", "unrecognized
arguments") and answers a typo with the whole usage block. Here an error is one
`docai: erro:` line, as docai's own errors are, plus where to find help. The English
messages are matched by pattern: one the table does not know (another Python version may
word it differently) is shown as argparse wrote it, never lost.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from docai import messages
from docai.cli.options.suggest import closest

_TYPE_NAMES = {"int": messages.ARGS_TYPE_INT, "float": messages.ARGS_TYPE_FLOAT}


def _invalid_value(match: re.Match[str]) -> str:
    kind = _TYPE_NAMES.get(match["type"], match["type"])
    return messages.ARGS_INVALID_VALUE.format(value=match["value"], kind=kind)


def _mistyped_command(match: re.Match[str]) -> str | None:
    """`docai serach`: a command mistyped, answered with the nearest one (a question where
    the command goes is asked: `parser.question_as_ask`)."""
    value = match["value"][1:-1]
    choices = re.findall(r"[\w-]+", match["choices"])
    if close := closest(value, choices):
        return messages.ARGS_DID_YOU_MEAN.format(
            value=value, match=close, choices=", ".join(choices))
    return None


Render = Callable[[re.Match[str]], "str | None"]
_TRANSLATIONS: tuple[tuple[re.Pattern[str], Render], ...] = (
    (re.compile(r"argument COMANDO: invalid choice: (?P<value>(['\"]).*\2) "
                r"\(choose from (?P<choices>.*)\)"),
     _mistyped_command),
    (re.compile(r"argument (?P<name>\S+): (?P<rest>.*)", re.DOTALL),
     lambda m: messages.ARGS_ARGUMENT.format(name=m["name"], message=translate(m["rest"]))),
    (re.compile(r"invalid (?P<type>\w+) value: (?P<value>.*)"), _invalid_value),
    (re.compile(r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)"),
     lambda m: messages.ARGS_INVALID_CHOICE.format(value=m["value"], choices=m["choices"])),
    (re.compile(r"unrecognized arguments: (?P<args>.*)"),
     lambda m: messages.ARGS_UNRECOGNIZED.format(arguments=m["args"])),
    (re.compile(r"the following arguments are required: (?P<args>.*)"),
     lambda m: messages.ARGS_REQUIRED.format(arguments=m["args"])),
    (re.compile(r"expected (?:one|at least one) argument"),
     lambda m: messages.ARGS_EXPECTED_VALUE),
    (re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)"),
     lambda m: messages.ARGS_AMBIGUOUS.format(option=m["option"], matches=m["matches"])),
)


def translate(message: str) -> str:
    """argparse's English error message in pt-BR (unchanged when no pattern knows it)."""
    for pattern, render in _TRANSLATIONS:
        if (match := pattern.fullmatch(message)) and (translated := render(match)) is not None:
            return translated
    return message


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks; "uso:" instead of "usage:"."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        # argparse passes prefix "" when it only wants a sub-command's `prog`.
        prefix = messages.ARGS_USAGE_PREFIX if prefix is None else prefix
        super().add_usage(usage, actions, groups, prefix=prefix)


def _long_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options `parser` and its sub-commands accept."""
    known = {option for option in parser._option_string_actions if option.startswith("--")}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                known |= _long_options(command)
    return known


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose help headings and errors are in pt-BR (sub-parsers too).

    Keyword arguments only, as `add_subparsers` passes them. `parents` are merged after the
    headings are translated, so a parent's groups join the ones of the same (pt-BR) name;
    `-h` comes after them, so usage lists it after the shared options.
    """

    def __init__(
        self,
        *,
        add_help: bool = True,
        parents: Sequence[argparse.ArgumentParser] = (),
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(add_help=False, **kwargs)
        self._positionals.title = messages.ARGS_POSITIONALS_TITLE
        self._optionals.title = messages.ARGS_OPTIONS_TITLE
        for parent in parents:  # as argparse itself merges them
            self._add_container_actions(parent)
            self._defaults.update(parent._defaults)
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                              help=messages.ARGS_HELP)
        self._argv: list[str] = []  # what is being parsed, for `error`

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        # A mistyped option is named first: argparse may report it as something else (in
        # `docai --dcos D search`, D is taken for the command).
        unknown = self.unknown_option(self._argv)
        text = unknown if unknown is not None else translate(message)
        print(messages.ERROR_PREFIX.format(message=text), file=sys.stderr)
        print(messages.ARGS_SEE_HELP.format(prog=self.prog), file=sys.stderr)
        sys.exit(2)

    def unknown_option(self, argv: Sequence[str]) -> str | None:
        """The error for the first long option in `argv` that no parser knows (not even as
        an abbreviation), with the nearest known one; None when there is none."""
        known = _long_options(self)
        for token in argv:
            if token == "--":
                break
            name = token.split("=", 1)[0]
            if not name.startswith("--") or any(option.startswith(name) for option in known):
                continue
            if close := closest(name, sorted(known)):
                return messages.ARGS_UNKNOWN_OPTION_CLOSE.format(option=name, match=close)
            return messages.ARGS_UNKNOWN_OPTION.format(option=name)
        return None
