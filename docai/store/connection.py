"""Connecting to the store's PostgreSQL, and its failures as one pt-BR line each.

The address is a libpq URL (`postgresql://...`) or keyword string, handed to libpq as
given: `PG*` variables, `~/.pgpass` and `sslmode` work as with `psql`. It is shown only
through `redact_url`, never with its password.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from docai import messages
from docai.redaction import redact_url
from docai.store.errors import StoreError, StoreReadOnly, StoreUnavailable

CONNECT_TIMEOUT_S = 10
APPLICATION_NAME = "docai"
# SQLSTATE classes and codes libpq reports for a refused login and a missing database.
_AUTH_CLASS = "28"
_NO_DATABASE = "3D000"
# libpq's own words for an address it cannot use before any server is asked: the fix is in
# the address, not in starting a server.
_ADDRESS_PROBLEMS = ("invalid sslmode", "invalid port", "definition of service", "service file",
                     "invalid connection option",
                     "invalid integer value", "missing \"=\"", "invalid URI")
_NO_ROLE = re.compile(r'role "([^"]{1,200})" does not exist')


def is_store_url(text: str) -> bool:
    """Whether `text` names a PostgreSQL server: a postgres(ql):// URL or libpq keywords."""
    value = text.strip()
    if value.startswith(("postgresql://", "postgres://")):
        return True
    try:
        return bool(psycopg.conninfo.conninfo_to_dict(value)) and "=" in value
    except psycopg.ProgrammingError:
        return False


def connect(url: str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A connection to the store, or a StoreError saying what to fix."""
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name=APPLICATION_NAME)
    except psycopg.Error as error:
        raise connect_error(url, error) from None


def connect_error(url: str, error: psycopg.Error) -> StoreError:
    shown = redact_url(url)
    state = error.sqlstate or ""
    reason = _reason(error)
    whole = str(error)  # libpq tells each host it tried on a line of its own
    if "no password supplied" in whole:
        return StoreError(messages.STORE_NO_PASSWORD.format(url=shown))
    if "does not support SSL" in whole or "SSL was required" in whole:
        return StoreError(messages.STORE_NO_TLS.format(url=shown, sslmode=_sslmode(url)))
    if (role := _NO_ROLE.search(reason)) is not None:
        return StoreError(messages.STORE_NO_ROLE.format(url=shown, role=role.group(1)))
    if state.startswith(_AUTH_CLASS) or "password authentication failed" in reason:
        return StoreError(messages.STORE_BAD_PASSWORD.format(url=shown))
    if state == _NO_DATABASE or ("database" in reason and "does not exist" in reason):
        return StoreError(messages.STORE_NO_DATABASE.format(url=shown))
    if any(problem in reason for problem in _ADDRESS_PROBLEMS):
        return StoreError(messages.STORE_BAD_ADDRESS.format(url=shown, reason=_libpq(reason)))
    if isinstance(error, psycopg.OperationalError):
        return StoreUnavailable(messages.STORE_SERVER_DOWN.format(url=shown, reason=reason))
    return StoreError(messages.STORE_CONNECTION_FAILED.format(url=shown, reason=reason))


def lost_error(url: str, error: psycopg.Error) -> StoreError:
    """What a failure on an open connection means for the user."""
    if isinstance(error, pg_errors.ReadOnlySqlTransaction):  # the server's, not the role's
        return StoreReadOnly(messages.STORE_SERVER_READ_ONLY.format(url=redact_url(url)))
    if isinstance(error, pg_errors.InsufficientPrivilege):
        return StoreReadOnly(messages.STORE_READ_ONLY.format(url=redact_url(url)))
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return StoreUnavailable(messages.STORE_CONNECTION_LOST.format(
            url=redact_url(url), reason=_reason(error)))
    return StoreError(messages.STORE_STATEMENT_FAILED.format(
        url=redact_url(url), reason=_reason(error)))


@contextmanager
def translated(url: str) -> Iterator[None]:
    """Database errors inside the block become StoreErrors (the password never shown)."""
    try:
        yield
    except psycopg.Error as error:
        raise lost_error(url, error) from None


def has_password(url: str) -> bool:
    """Whether the address carries a password (a URL's or a keyword string's)."""
    try:
        return bool(psycopg.conninfo.conninfo_to_dict(url).get("password"))
    except psycopg.ProgrammingError:
        return False


def _sslmode(url: str) -> str:
    """The address's sslmode, as libpq reads it (the variable too)."""
    try:
        given = psycopg.conninfo.conninfo_to_dict(url).get("sslmode")
    except psycopg.ProgrammingError:
        given = None
    return str(given or os.environ.get("PGSSLMODE") or "require")


def _libpq(reason: str) -> str:
    """libpq's words without psycopg's prefix ("connection is bad: ...")."""
    return reason.removeprefix("connection is bad: ")


def _reason(error: psycopg.Error) -> str:
    """The first line of libpq's or the server's message, without a password it may echo."""
    text = str(error).strip().splitlines()
    return redact_url(text[0]) if text else type(error).__name__
