"""The user guide (resources/docs) names everything docai's parser knows: every option of
every subcommand, every subcommand and every REPL command (each of its names), and every
key config.toml takes. A new option the guide does not mention fails here, not in a user's
hands."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from docai.cli.options.config import KEYS
from docai.cli.options.parser import build_parser, subparsers
from docai.cli.repl.command_table import COMMANDS
from docai.cli.repl.info import SETTABLE

GUIDE = Path(__file__).resolve().parents[2] / "resources" / "docs"


def guide_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in sorted(GUIDE.iterdir()))


def named(text: str, name: str) -> bool:
    """Whether `name` stands in the guide as a word of its own (`-k`, not part of `-kb`)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings
            if option not in ("-h", "--help")}


def test_every_option_and_subcommand_is_in_the_guide() -> None:
    text = guide_text()
    parser = build_parser()
    missing = sorted(option for option in options_of(parser) if not named(text, option))
    for name, subparser in subparsers(parser).items():
        if not named(text, f"docai {name}"):
            missing.append(f"docai {name}")
        missing += sorted(f"docai {name} {option}" for option in options_of(subparser)
                          if not named(text, option))
    assert not missing, missing


def test_every_repl_command_and_setting_is_in_the_guide() -> None:
    text = guide_text()
    missing = [name for command in COMMANDS for name in command.names
               if name not in ("/?", "/sessões") and not named(text, name)]
    missing += [f"/set {name}" for name in SETTABLE if not named(text, name)]
    assert not missing, missing


def test_every_config_key_is_in_the_guide() -> None:
    configuration = (GUIDE / "configuration.md").read_text(encoding="utf-8")
    assert not [key for key in KEYS if not named(configuration, key)]
