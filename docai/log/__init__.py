"""The log of exchanges (question, answer, sources, model, docs folder, time) in SQLite:
what `docai log`, `docai -c`, `/sessoes` and `/retomar` read. Only `cli/` uses it."""

from docai.log.records import LoggedExchange, LoggedSource, SessionSummary, Status
from docai.log.store import ExchangeLog, LogError, default_log_path, now_utc

__all__ = [
    "ExchangeLog",
    "LogError",
    "LoggedExchange",
    "LoggedSource",
    "SessionSummary",
    "Status",
    "default_log_path",
    "now_utc",
]
