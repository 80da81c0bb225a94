"""`make_backend`: the chat backend the settings name, built in one place above the backends.

The backends import only the protocol (`base`) and the HTTP plumbing (`http`); this module
imports them, so nothing imports back up and a new kind of server is one more branch here.
"""

from __future__ import annotations

import os

from docai import messages
from docai.errors import SettingsError
from docai.llm.base import ChatBackend
from docai.llm.http import CONNECT_TIMEOUT, DEFAULT_RETRY, QUICK_CONNECT_TIMEOUT
from docai.settings import Settings


def make_backend(
    settings: Settings, environ: dict[str, str] | None = None, *, quick: bool = False
) -> ChatBackend:
    """The backend `settings.backend` names, pointed at its URL and `settings.model`.

    The OpenAI backend reads its optional API key from OPENAI_API_KEY in `environ`
    (default: the process environment). A `quick` backend makes one attempt with a short
    connect timeout: for a server believed down, where retries would only make the user wait.
    """
    retries = 0 if quick else DEFAULT_RETRY.retries
    connect_timeout = QUICK_CONNECT_TIMEOUT if quick else CONNECT_TIMEOUT
    if settings.backend == "openai":
        from docai.llm.openai import OpenAIClient

        if not settings.base_url:
            raise SettingsError(messages.LLM_OPENAI_NEEDS_BASE_URL)
        env = os.environ if environ is None else environ
        return OpenAIClient(
            settings.base_url,
            settings.model,
            api_key=env.get("OPENAI_API_KEY"),
            connect_timeout=connect_timeout,
            read_timeout=settings.read_timeout,
            retries=retries,
        )
    from docai.llm.ollama import OllamaClient

    return OllamaClient(
        settings.ollama_url, settings.model, connect_timeout=connect_timeout,
        read_timeout=settings.read_timeout, retries=retries,
    )
