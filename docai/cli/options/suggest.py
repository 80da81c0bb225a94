"""The nearest valid name to a mistyped one, for "você quis dizer …?" (options, subcommands,
config keys): one rule, so every suggestion docai makes is as good as the others.

Names are compared without their leading dashes: every option shares "--", which made
`--bogus` look 60 % like `--verbose`. A suggestion must then be close (a letter or two
swapped, missing or extra): a wrong hint is worse than none.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CLOSENESS = 0.75  # difflib's ratio: "modle"/"model" 0.8, "verbos"/"verbose" 0.92


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice nearest to `name`, or None when none is close enough."""
    by_bare = {choice.lstrip("-").casefold(): choice for choice in choices}
    found = difflib.get_close_matches(name.lstrip("-").casefold(), list(by_bare), n=1,
                                      cutoff=CLOSENESS)
    return by_bare[found[0]] if found else None
