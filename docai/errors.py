"""Exception types. Each carries a message the user can act on; the CLI prints it, no traceback."""

from __future__ import annotations


class DocaiError(Exception):
    """Base class: anything docai reports to the user as a one-line (or few-line) error."""


class SettingsError(DocaiError):
    """An option or environment value is out of range or malformed."""


class DocsFolderError(DocaiError):
    """The docs folder is missing, not a folder, or unreadable."""


class CacheError(DocaiError):
    """A cache file is unusable; callers rebuild instead of trusting it."""
