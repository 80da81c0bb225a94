"""Settings a person sets once: the config file, the environment, and which one won.

Each of the settings below comes, in this order of precedence, from a command-line option,
an environment variable, the TOML config file in the user config folder
(`docai.settings.config_file`), or docai's default; `docai config` shows the winner and where
it came from. The defaults themselves live in `docai.settings`. A bad config file stops every
command with one line naming the file, the key and the fix: silently ignoring it would
answer from the wrong folder or model without saying why.

Without a docs folder from any of them, the first of `DOCS_CANDIDATES` that exists in the
current folder is used, so `docai` started in a project finds its docs.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docai import messages
from docai.cli.options.suggest import closest
from docai.errors import SettingsError
from docai.folders import user_folder
from docai.redaction import redact_url
from docai.settings import (
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_URL,
    DOCS_CANDIDATES,
    ENV_COLLECTION,
    ENV_DENSE,
    ENV_DOCS,
    ENV_MODEL,
    ENV_OLLAMA_HOST,
    ENV_STORE,
    MAX_TOP_K,
    Settings,
    config_file,
    normalise_ollama_url,
)

DEFAULTS = Settings()
# A config file holds a few lines; a larger one is not a config file.
MAX_CONFIG_BYTES = 1 << 20
# The words an on/off setting (`dense`) accepts in the environment and on the command line.
SWITCH_ON = ("on", "true", "yes", "1", "sim")
SWITCH_OFF = ("off", "false", "no", "0", "não", "nao")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value came from: `kind` is one of the ORIGIN_* messages, `name` the option,
    variable or file (empty for a default)."""

    kind: str
    name: str = ""

    def describe(self) -> str:
        return f"{self.kind} ({self.name})" if self.name else self.kind


@dataclass(frozen=True, slots=True)
class Sourced:
    value: Any  # None: nothing set and nothing found (only `docs` can be so)
    origin: Origin


@dataclass(frozen=True, slots=True)
class _Key:
    """One config key: the option (`dest` in argparse, and its spelling), the environment
    variable (if any), the default, and how a file value is checked."""

    dest: str
    option: str
    env: str | None
    default: Any
    check: Callable[[Path, str, object], Any]


def _text(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str) or not is_model_name(value.strip()):
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_NAME)
    return value.strip()


def _folder(path: Path, key: str, value: object) -> Path | tuple[Path, ...]:
    """A folder, or a list of folders read as one collection (`docs = ["api", "manual"]`)."""
    items = value if isinstance(value, list) and value else [value]
    texts = [item for item in items if isinstance(item, str) and item.strip()]
    if len(texts) != len(items):
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_FOLDER)
    origin = Origin(messages.ORIGIN_FILE, f"{path}, {key}").describe()
    folders = tuple(user_folder(text, origin) for text in texts)
    return folders if len(folders) > 1 else folders[0]


def _server(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_URL)
    url = normalise_ollama_url(value)
    try:
        Settings(ollama_url=url)  # the one check every server address goes through
    except SettingsError:
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_URL) from None
    return url


def _switch(path: Path, key: str, value: object) -> bool:
    """`true`/`false`, or the words the option takes ("on"/"off")."""
    if isinstance(value, bool):
        return value
    switched = on_off(value) if isinstance(value, str) else None
    if switched is None:
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_SWITCH)
    return switched


def on_off(text: str) -> bool | None:
    """The switch `text` names ("on", "off" and their usual synonyms), None if none."""
    word = text.strip().lower()
    if word in SWITCH_ON:
        return True
    if word in SWITCH_OFF:
        return False
    return None



def _store(path: Path, key: str, value: object) -> str:
    from docai.store.connection import is_store_url  # here: psycopg only when a store is set

    if not isinstance(value, str) or not is_store_url(value):
        shown = redact_url(value) if isinstance(value, str) else value
        raise _bad_value(path, key, shown, messages.CONFIG_EXPECTED_STORE)
    return value.strip()


def _collection(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str) or not (0 < len(value) <= 200 and value.isprintable()
                                          and value.strip()):
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_COLLECTION)
    return value


def _count(path: Path, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP_K:
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_K.format(maximum=MAX_TOP_K))
    return value


def _model_setting(field: str, kind: type) -> Callable[[Path, str, object], Any]:
    """A check for a model setting `/set` can change too (num_ctx, temperature, …): its
    type, then the range `Settings` enforces for the option, said with the file's key."""

    def check(path: Path, key: str, value: object) -> Any:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if (kind is int and not isinstance(value, int)) or (kind is float and not number) or (
            isinstance(value, bool)
        ):
            raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_NUMBER)
        try:
            Settings(**{field: kind(value)})
        except SettingsError as error:  # the option's range, said for the file's line
            raise SettingsError(messages.CONFIG_OUT_OF_RANGE.format(
                path=path, key=key, reason=error, example=messages.CONFIG_EXAMPLES[key])) from None
        return kind(value)

    return check


def _instructions(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad_value(path, key, value, messages.CONFIG_EXPECTED_TEXT)
    return value


KEYS: dict[str, _Key] = {
    "docs": _Key("docs", "--docs", ENV_DOCS, None, _folder),
    "model": _Key("model", "--model", ENV_MODEL, DEFAULT_MODEL, _text),
    "server": _Key("ollama_url", "--ollama-url", ENV_OLLAMA_HOST, DEFAULT_OLLAMA_URL, _server),
    "dense": _Key("dense", "--dense", ENV_DENSE, DEFAULTS.dense, _switch),
    "embedder": _Key("embed_model", "--embed-model", None, None, _text),
    "k": _Key("top_k", "-k", None, DEFAULTS.top_k, _count),
    "log": _Key("log", "--no-log", None, DEFAULTS.log, _switch),
    "store": _Key("store", "--store", ENV_STORE, None, _store),
    "collection": _Key("collection", "--collection", ENV_COLLECTION, None, _collection),
    # What `/set` changes in a session can be kept here too.
    "num_ctx": _Key("num_ctx", "--num-ctx", None, DEFAULTS.num_ctx,
                    _model_setting("num_ctx", int)),
    "max_tokens": _Key("max_tokens", "--max-tokens", None, DEFAULTS.max_tokens,
                       _model_setting("max_tokens", int)),
    "temperature": _Key("temperature", "--temperature", None, DEFAULTS.temperature,
                        _model_setting("temperature", float)),
    "thinking": _Key("think", "--no-think", None, DEFAULTS.think, _switch),
    "show_thinking": _Key("show_thinking", "--show-thinking", None, DEFAULTS.show_thinking,
                          _switch),
    "system": _Key("system", "--system", None, DEFAULTS.system_prompt, _instructions),
}


def read_config(path: Path) -> dict[str, Any]:
    """The checked values of the config file at `path` ({} when there is none)."""
    try:
        raw = _config_bytes(path)
    except (FileNotFoundError, NotADirectoryError):  # none (its folder is a file: none either)
        return {}
    except OSError as error:
        reason = error.strerror or str(error)
        raise SettingsError(messages.CONFIG_UNREADABLE.format(path=path, reason=reason)) from None
    try:
        # `-sig`: a byte-order mark (Windows editors write one) is not part of the TOML.
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise SettingsError(messages.CONFIG_NOT_UTF8.format(path=path)) from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(messages.CONFIG_NOT_TOML.format(path=path, reason=error)) from None
    except RecursionError:  # arrays or tables nested deeper than the parser's stack
        raise SettingsError(messages.CONFIG_NOT_TOML.format(
            path=path, reason=messages.CONFIG_TOO_DEEP)) from None
    values = {}
    for key, value in data.items():
        spec = KEYS.get(key)
        if spec is None:
            close = closest(key, KEYS)
            hint = "" if close is None else messages.CONFIG_DID_YOU_MEAN.format(key=close)
            raise SettingsError(messages.CONFIG_UNKNOWN_KEY.format(
                path=path, key=key, hint=hint, keys=", ".join(KEYS)))
        values[key] = spec.check(path, key, value)
    return values


def _config_bytes(path: Path) -> bytes:
    """The config file's bytes. Opened without waiting (a named pipe there would hang every
    command) and refused unless a regular file of at most `MAX_CONFIG_BYTES`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, messages.NOT_A_REGULAR_FILE)
        raw = handle.read(MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise OSError(errno.EFBIG, messages.CONFIG_TOO_LARGE.format(limit=MAX_CONFIG_BYTES))
    return raw


def sourced_values(
    args: argparse.Namespace, environ: Mapping[str, str], *, cwd: Path | None = None
) -> dict[str, Sourced]:
    """Every config key's value and where it came from (option > environment > file >
    default); a docs folder found in `cwd` when none is set."""
    path = config_file()
    from_file = read_config(path)
    values = {}
    for key, spec in KEYS.items():
        given = getattr(args, spec.dest, None)
        if isinstance(given, list):  # `--docs` repeated: several folders, one collection
            given = tuple(given) if len(given) > 1 else given[0]
        env = environ.get(spec.env, "").strip() if spec.env else ""
        if given is not None:
            values[key] = Sourced(given, Origin(messages.ORIGIN_OPTION, spec.option))
        elif env and spec.env is not None:
            values[key] = Sourced(_from_env(key, env), Origin(messages.ORIGIN_ENV, spec.env))
        elif key in from_file:
            values[key] = Sourced(from_file[key], Origin(messages.ORIGIN_FILE, str(path)))
        else:
            values[key] = Sourced(spec.default, Origin(messages.ORIGIN_DEFAULT))
    if values["docs"].value is None:
        values["docs"] = _found_docs(cwd)
    return values


def _from_env(key: str, value: str) -> Any:
    """An environment variable's value, checked as the option's would be, and named when
    it is bad (the user may not remember having set it)."""
    if key == "docs":
        return user_folder(value, Origin(messages.ORIGIN_ENV, ENV_DOCS).describe())
    if key == "server":  # checked by `check_env_server`, when the Ollama backend is used
        return normalise_ollama_url(value)
    if key == "dense":
        if (switched := on_off(value)) is None:
            raise _bad_env(key, value, messages.ENV_EXPECTED_SWITCH)
        return switched
    if key == "store":
        from docai.store.connection import is_store_url

        if not is_store_url(value):
            raise _bad_env(key, redact_url(value), messages.ENV_EXPECTED_STORE)
        return value
    if key == "model" and not is_model_name(value):
        raise _bad_env(key, value, messages.ENV_EXPECTED_NAME)
    return value


def check_env_server(value: str) -> None:
    """Raise a SettingsError naming OLLAMA_HOST when `value` (its text) is no address."""
    try:
        Settings(ollama_url=normalise_ollama_url(value))  # the one check every address passes
    except SettingsError:
        raise _bad_env("server", value, messages.ENV_EXPECTED_URL) from None


def is_model_name(text: str) -> bool:
    """A model name as servers know them: one word (`deepseek-r1`, `qwen3:8b`)."""
    return len(text.split()) == 1 and text.strip() == text


def _bad_env(key: str, value: str, expected: str) -> SettingsError:
    return SettingsError(messages.CONFIG_BAD_ENV.format(
        name=KEYS[key].env, value=_shown(key, value), expected=expected))


def _shown(key: str, value: object) -> object:
    """A bad value as an error line may quote it: a server address without its password."""
    return redact_url(value) if key == "server" and isinstance(value, str) else value


def _found_docs(cwd: Path | None) -> Sourced:
    if cwd is None:
        try:
            cwd = Path.cwd()
        except OSError:  # the current folder was deleted: nothing can be found in it
            return Sourced(None, Origin(messages.ORIGIN_NOTHING))
    for candidate in DOCS_CANDIDATES:
        if (cwd / candidate).is_dir():
            return Sourced(candidate, Origin(messages.ORIGIN_FOUND))
    return Sourced(None, Origin(messages.ORIGIN_NOTHING))


def _bad_value(path: Path, key: str, value: object, expected: str) -> SettingsError:
    example = messages.CONFIG_EXAMPLES[key]
    return SettingsError(messages.CONFIG_BAD_VALUE.format(
        path=path, key=key, value=_shown(key, value), expected=expected, example=example))
