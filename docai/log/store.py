"""The log of exchanges: one SQLite file (stdlib `sqlite3`) in the user data folder.

Why SQLite: two docai processes (a REPL and an `ask` in another terminal) may write at once,
and a reader (`docai log`) must never see half an exchange. WAL lets readers and a writer
work together; a short busy timeout lets two writers take turns. The file and the WAL/SHM
files SQLite makes beside it are the user's alone (0600, in a 0700 folder), like a shell's
history: questions can name private things.

Every failure (a damaged file, a lock held too long, a full disk, a newer docai's schema) is
one `LogError` with the reason; callers decide that an answer goes on without the log.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

from docai import messages
from docai.byte_text import valid_text
from docai.errors import DocaiError
from docai.log.records import LoggedExchange, LoggedSource, SessionSummary, Status
from docai.records import Location
from docai.settings import APP_NAME
from docai.text.tokenise import fold_marks

LOG_FILE_NAME = "log.sqlite3"
SCHEMA_VERSION = 2  # 2: conversations may have a name
# Seconds a write waits for another docai's write to end: long enough for any real
# exchange's insert, short enough that a stuck lock costs the user one pause, once.
BUSY_TIMEOUT_S = 1.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    collection TEXT NOT NULL,
    started_at TEXT NOT NULL,
    name TEXT
);
CREATE TABLE IF NOT EXISTS exchanges (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    asked_at TEXT NOT NULL,
    collection TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    sources TEXT NOT NULL,
    searchable TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS exchanges_by_session ON exchanges(session_id, id);
CREATE INDEX IF NOT EXISTS sessions_by_collection ON sessions(collection, id);
"""


# SQLite's integers are 64-bit signed: a larger LIMIT is a type error, not "everything".
SQLITE_MAX_INTEGER = 2**63 - 1


class LogError(DocaiError):
    """The log could not be read or written; the message says which file and why.
    `locked`: another program held it past SQLite's busy timeout, so the fix is to wait
    or close that program, not to move a damaged file away."""

    def __init__(self, message: str, *, locked: bool = False, unwritable: bool = False) -> None:
        super().__init__(message)
        self.locked = locked
        # The disk is full or read-only: the log is intact and can still be read.
        self.unwritable = unwritable


def default_log_path() -> Path:
    """`~/.local/share/docai/log.sqlite3` on Linux (XDG_DATA_HOME honoured)."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / LOG_FILE_NAME


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ExchangeLog:
    """An open log file. `collection` is what a docs folder (or shared store) is known by:
    its absolute path, so the same folder reached from two places is one collection."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """Open (and with `read_only` False, create) the log. Read-only is how `docai log`
        reads, and how a session on a read-only or full disk still lists and resumes."""
        self.path = path
        try:
            if read_only:
                self._db = _read_only_connection(path)
            else:
                _private_file(path)
                self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except (OSError, sqlite3.Error) as error:
            raise self._error(error) from None
        try:
            if read_only:
                self._check_version()
            else:
                self._prepare()
        except sqlite3.Error as error:
            self._db.close()
            raise self._error(error) from None

    def close(self) -> None:
        self._db.close()

    # --- writing ------------------------------------------------------------------------------
    def start_session(self, collection: str) -> int:
        cursor = self._write(
            "INSERT INTO sessions (collection, started_at) VALUES (?, ?)", (collection, now_utc()))
        return int(cursor.lastrowid or 0)

    def add(self, session: int, exchange: LoggedExchange) -> int:
        cursor = self._write(
            "INSERT INTO exchanges (session_id, asked_at, collection, model, status, question,"
            " answer, sources, searchable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session, exchange.asked_at, exchange.collection, exchange.model, exchange.status,
             exchange.question, exchange.answer, _sources_json(exchange.sources),
             _folded(f"{exchange.question}\n{exchange.answer}")))
        return int(cursor.lastrowid or 0)

    def rename_session(self, session: int, name: str | None) -> bool:
        """Give a conversation a name (None removes it); False when there is no such one."""
        if not _storable(session):
            return False
        cursor = self._write("UPDATE sessions SET name = ? WHERE id = ?", (name, session))
        return cursor.rowcount > 0

    def delete_sessions(self, sessions: Sequence[int] | None) -> int:
        """Delete these conversations (None: every one) with their exchanges, in one
        transaction; the number of exchanges deleted."""
        if sessions is not None:
            sessions = [number for number in sessions if _storable(number)]
        where, values = ("", []) if sessions is None else (
            f" WHERE session_id IN ({','.join('?' * len(sessions))})", list(sessions))
        try:
            with self._db:
                deleted = self._db.execute(f"DELETE FROM exchanges{where}", values).rowcount
                self._db.execute(f"DELETE FROM sessions{where.replace('session_id', 'id')}",
                                 values)
            # The write-ahead log still holds the pages as they were: fold it in and empty it.
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as error:
            raise self._error(error) from None
        _private_companions(self.path)
        return int(deleted)

    # --- reading ------------------------------------------------------------------------------
    def session_summary(self, session: int) -> SessionSummary | None:
        """One conversation, whatever its folder (None when there is no such one)."""
        if not _storable(session):
            return None
        rows = self._read(_SUMMARY.format(where="s.id = ?") + " GROUP BY s.id", (session,))
        return _summary(rows[0]) if rows else None

    def recent(
        self, limit: int | None = None, *, words: Sequence[str] = (), collection: str | None = None
    ) -> list[LoggedExchange]:
        """The last `limit` exchanges (all with None), oldest first; with `words`, only those
        whose question or answer holds every word (case and accents ignored)."""
        clauses, values = [], []
        for word in words:
            clauses.append("searchable LIKE ? ESCAPE '\\'")
            values.append(f"%{_like_pattern(_folded(word))}%")
        if collection is not None:
            clauses.append("collection = ?")
            values.append(collection)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        query = f"SELECT * FROM exchanges {where} ORDER BY id DESC"
        if limit is not None and limit < SQLITE_MAX_INTEGER:  # more than there can be: all
            query += f" LIMIT {int(limit)}"
        rows = self._read(query, values)
        return [_exchange(row) for row in reversed(rows)]

    def session_exchanges(self, session: int) -> list[LoggedExchange]:
        if not _storable(session):
            return []
        rows = self._read("SELECT * FROM exchanges WHERE session_id = ? ORDER BY id", (session,))
        return [_exchange(row) for row in rows]

    def all_sessions(self) -> list[SessionSummary]:
        """Every conversation with an exchange, of every folder."""
        return [_summary(row) for row in self._read(
            _SUMMARY.format(where="1 = 1") + " GROUP BY s.id ORDER BY s.id", ())]

    def sessions(self, collection: str, limit: int) -> list[SessionSummary]:
        """The `limit` sessions of `collection` with at least one exchange, newest first."""
        rows = self._read(
            _SUMMARY.format(where="s.collection = ?")
            + " GROUP BY s.id ORDER BY MAX(e.id) DESC LIMIT ?", (collection, limit))
        return [_summary(row) for row in rows]

    # --- internals ----------------------------------------------------------------------------
    def _check_version(self) -> int:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(messages.LOG_NEWER_SCHEMA.format(version=version))
        return version

    def _prepare(self) -> None:
        version = self._check_version()
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL's usual setting: a crash cannot corrupt the file, and a write costs no fsync.
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Deleted conversations are overwritten on disk, not only unlinked (privacy).
        self._db.execute("PRAGMA secure_delete=ON")
        if version == 1:  # a log of before names: the column added, nothing else touched
            self._db.executescript(
                f"BEGIN;ALTER TABLE sessions ADD COLUMN name TEXT;"
                f"PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")
        elif version < SCHEMA_VERSION:
            self._db.executescript(
                f"BEGIN;{_SCHEMA}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")
        _private_companions(self.path)

    def _write(self, sql: str, values: Sequence[object]) -> sqlite3.Cursor:
        try:
            cursor = self._db.execute(sql, _valid(values))
        except sqlite3.Error as error:
            raise self._error(error) from None
        _private_companions(self.path)
        return cursor

    def _read(self, sql: str, values: Sequence[object]) -> list[sqlite3.Row]:
        self._db.row_factory = sqlite3.Row
        try:
            return self._db.execute(sql, _valid(values)).fetchall()
        except sqlite3.Error as error:
            raise self._error(error) from None

    def _error(self, error: Exception) -> LogError:
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return LogError(messages.LOG_LOCKED.format(path=self.path), locked=True)
        reason = getattr(error, "strerror", None) or str(error)
        if _unwritable(error):
            return LogError(messages.LOG_UNWRITABLE.format(path=self.path, reason=reason),
                            unwritable=True)
        return LogError(messages.LOG_UNAVAILABLE.format(path=self.path, reason=reason))


# A conversation as `/sessoes` and `docai log` show it: with at least one exchange.
_SUMMARY = (
    "SELECT s.id, s.started_at, COUNT(e.id), MAX(e.asked_at),"
    " (SELECT question FROM exchanges f WHERE f.session_id = s.id ORDER BY f.id LIMIT 1),"
    " s.name, s.collection FROM sessions s JOIN exchanges e ON e.session_id = s.id"
    " WHERE {where}"
)


def _summary(row: sqlite3.Row) -> SessionSummary:
    return SessionSummary(row[0], row[1], row[2], row[3], row[4], name=row[5],
                          collection=row[6])


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """`path` opened for reading only, never created; on a read-only folder, where SQLite
    cannot make the WAL's shared-memory file, as an immutable file (nothing writes it
    there anyway)."""
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    uri = path.resolve().as_uri()
    connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S,
                                 isolation_level=None)
    try:
        connection.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError:
        connection.close()
        connection = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)
    return connection


def _unwritable(error: Exception) -> bool:
    """Whether `error` says the disk refuses writes (full, read-only, no permission), not
    that the file is damaged."""
    if isinstance(error, OSError):
        return error.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC,
                               errno.EDQUOT)
    text = str(error).casefold()
    return any(words in text for words in ("readonly", "read-only", "disk is full",
                                           "disk i/o error", "unable to open database file"))


def _private_file(path: Path) -> None:
    """Create the folder (0700) and the file (0600) before SQLite does: SQLite gives the
    WAL and SHM files the mode of the database file, so all three stay private."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    status = folder.stat()
    if status.st_uid == os.geteuid() and status.st_mode & 0o077:  # e.g. made by an older docai
        folder.chmod(0o700)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
    finally:
        os.close(descriptor)


def _private_companions(path: Path) -> None:
    """The WAL and SHM files, 0600 whatever the umask did to them."""
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        try:
            if companion.stat().st_mode & 0o077:
                companion.chmod(0o600)
        except OSError:
            pass  # not there (yet): nothing to protect


def _storable(number: int) -> bool:
    """Whether `number` can be a row id: SQLite refuses an integer past 64 bits outright
    (OverflowError), where a number it can hold that names no row simply finds nothing."""
    return -SQLITE_MAX_INTEGER - 1 <= number <= SQLITE_MAX_INTEGER


def _valid(values: Sequence[object]) -> list[object]:
    """`values` with every string valid Unicode: SQLite stores UTF-8, and a question or a
    file name that came from a stray byte (a lone surrogate) would not encode."""
    return [valid_text(value) if isinstance(value, str) else value for value in values]


def _folded(text: str) -> str:
    """What `--search` matches: case and accents folded, at write time (a search over years
    of exchanges is then one SQL scan, no Python call per row)."""
    return fold_marks(text).casefold()


def _like_pattern(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _sources_json(sources: Sequence[LoggedSource]) -> str:
    return json.dumps([{"source": s.source, "heading": s.heading, "chunk": s.chunk,
                        "location": _location_json(s.location)}
                       for s in sources], ensure_ascii=False)


def _location_json(location: Location | None) -> dict[str, object] | None:
    return None if location is None else {"unit": location.unit, "number": location.number}


def _location(raw: object) -> Location | None:
    """A stored location back; anything malformed (another tool's edit) reads as none."""
    if not isinstance(raw, dict):
        return None
    try:
        return Location(str(raw["unit"]), int(raw["number"]))
    except (KeyError, TypeError, ValueError):
        return None


def _exchange(row: sqlite3.Row) -> LoggedExchange:
    try:
        raw = json.loads(row["sources"])
        sources = tuple(LoggedSource(str(s["source"]), str(s.get("heading", "")),
                                     s.get("chunk"), _location(s.get("location")))
                        for s in raw)
    except (ValueError, TypeError, KeyError, AttributeError):
        sources = ()  # a row some other tool edited: the exchange is still worth showing
    return LoggedExchange(
        question=row["question"], answer=row["answer"], status=Status(row["status"])
        if row["status"] in Status._value2member_map_ else Status.ANSWERED,
        model=row["model"], collection=row["collection"], asked_at=row["asked_at"],
        sources=sources, id=row["id"], session=row["session_id"])
