"""The REPL's one command table: every command is dispatched by each of its names, shown by
`/ajuda` and named by the unknown-command hint; no two commands share a name.

Through the real REPL functions, a real index of a small docs folder and a real (never
contacted) Ollama client: no command in the table talks to the model.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from docai import messages
from docai.answer.answerer import Answerer
from docai.cli.repl.command_table import COMMANDS, ReplCommand, help_text
from docai.cli.repl.loop import handle_line
from docai.cli.repl.session import Session
from docai.cli.startup import open_retrieval
from docai.llm.backends import make_backend
from docai.settings import Settings

# An argument each command accepts, so that dispatching it does the command's real work.
ARGUMENTS = {"/k": "5", "/modelo": "llama3.2"}
# What each command's reply starts with (None: it says nothing).
REPLIES = {
    "/ajuda": messages.REPL_HELP_HEADER,
    "/fontes": messages.REPL_NO_SOURCES,
    "/abrir": messages.REPL_NO_SOURCES,
    "/pensamento": messages.REPL_THINKING_ON,
    "/k": messages.REPL_K_SET.format(k=5),
    "/modelo": messages.REPL_MODEL_SET.format(model="llama3.2"),
    "/reindexar": messages.REPL_REINDEXED.format(files=1, chunks=1),
    "/pasta": messages.REPL_SCOPE_WHOLE,  # alone: which part is asked about
    "/limpar": "",  # a pipe has no screen to clear: nothing said, the session goes on
    "/nova": messages.REPL_NEW_CONVERSATION,
    "/denovo": messages.REPL_NOTHING_TO_RETRY,  # a new session has no last answer
    "sair": None,
    "/sessoes": messages.SESSIONS_LOG_OFF,  # a Session made here has no log
    "/retomar": messages.SESSIONS_LOG_OFF,
    "/salvar": messages.SAVE_USAGE,
    "/copiar": messages.COPY_NO_QUESTION,
    "/info": "  modelo          deepseek-r1 (ollama em http://127.0.0.1:9)\n",
    "/set": messages.SET_USAGE.format(
        names="k, num_ctx, max_tokens, temperature, thinking, system, embed"),
    "/editar": messages.EDIT_NEEDS_TERMINAL,  # no editor for a script's input
}

NewSession = Callable[[], Session]


@pytest.fixture
def new_session(tmp_path: Path) -> NewSession:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guia.md").write_text(
        "# Guia\n\nPara instalar o docai, rode `pip install docai`.\n", encoding="utf-8"
    )
    settings = Settings(docs_dir=docs, cache_dir=tmp_path / "cache",
                        ollama_url="http://127.0.0.1:9")  # nothing listens there
    opened = open_retrieval(settings, io.StringIO(), progress=False)

    def make() -> Session:
        answerer = Answerer(opened.index, make_backend(settings), settings, dense=opened.dense)
        return Session(answerer, show_thinking=False, out=io.StringIO(), interactive=False)

    return make


def _said(session: Session) -> str:
    assert isinstance(session.out, io.StringIO)
    return session.out.getvalue()


def test_no_two_commands_share_a_name() -> None:
    names = [name.casefold() for command in COMMANDS for name in command.names]
    assert len(names) == len(set(names))


def test_every_reply_above_is_checked() -> None:
    assert sorted(REPLIES) == sorted(command.names[0] for command in COMMANDS)


@pytest.mark.parametrize(
    ("command", "name"),
    [(command, name) for command in COMMANDS for name in command.names],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_every_name_of_every_command_is_dispatched(
    new_session: NewSession, command: ReplCommand, name: str
) -> None:
    for typed in (name, name.upper()):
        session = new_session()
        argument = ARGUMENTS.get(command.names[0], "")
        keep_going = handle_line(f"{typed} {argument}".strip(), session)
        reply = REPLIES[command.names[0]]
        assert keep_going == (reply is not None)
        assert _said(session).startswith(reply or "")
        if reply is None:
            assert _said(session) == ""


def test_the_help_shows_every_command_with_the_current_values(new_session: NewSession) -> None:
    session = new_session()
    assert handle_line("/ajuda", session)
    shown = _said(session)
    assert shown == help_text(session) + "\n"
    for command in COMMANDS:
        assert f"\n  {command.usage} " in shown
    assert shown == (
        "Comandos:\n"
        "  /ajuda             mostra esta ajuda (também /help, /?)\n"
        "  /fontes [N]        fontes da última resposta; /fontes N mostra o trecho N"
        " inteiro (também /sources)\n"
        "  /abrir [N]         abre no seu editor o arquivo da fonte N (padrão 1), na"
        " linha do trecho (também /open)\n"
        "  /pensamento        mostra ou oculta o raciocínio do modelo (agora: oculto)"
        " (também /think)\n"
        "  /k N               quantos trechos recuperar (agora: 3; de 1 a 20)\n"
        "  /modelo NOME       troca o modelo (agora: deepseek-r1) (também /model)\n"
        "  /reindexar         relê a pasta de documentos e atualiza o índice (também"
        " /reindex)\n"
        "  /pasta CAMINHO     pergunta só sobre um arquivo ou pasta (/pasta - volta à"
        " coleção toda; @arquivo.md pergunta: só uma vez) (também /folder, /only)\n"
        "  /nova              começa uma conversa nova, sem as perguntas anteriores"
        " (também /new, /reset)\n"
        "  /denovo            gera de novo a última resposta, sem usar o cache (também"
        " /retry)\n"
        "  /limpar            limpa a tela, como Ctrl-L (a conversa continua) (também"
        " /clear, clear)\n"
        "  /sessoes           lista as conversas com esta pasta (nomear N NOME, apagar"
        " N) (também /sessions)\n"
        "  /retomar N         retoma a conversa #N de /sessoes (também /resume)\n"
        "  /salvar ARQUIVO    grava a conversa em Markdown, com as fontes (também /save)\n"
        "  /copiar            copia a última resposta, com as fontes, para a área de"
        " transferência (também /copy)\n"
        "  /info              mostra tudo o que está em vigor: modelo, pasta, índice,"
        " busca, registro\n"
        "  /set NOME VALOR    muda k, num_ctx, temperature, max_tokens, thinking ou"
        " system (ex.: /set temperature 0.7)\n"
        '  /editar            edita a pergunta no $EDITOR (ou Ctrl-X Ctrl-E); """ ou'
        " Alt-Enter: várias linhas (também /edit)\n"
        "  sair               encerra, como Ctrl-D (também exit, quit, /sair, /exit,"
        " /quit, /bye)\n"
        "Ctrl-C interrompe uma resposta em andamento.\n"
    )


def test_an_unknown_command_names_every_command(new_session: NewSession) -> None:
    session = new_session()
    assert handle_line("/xyz", session)
    hint = _said(session)
    assert hint == (
        "comando desconhecido: /xyz. Comandos: /ajuda, /fontes [N], /abrir [N], /pensamento, "
        "/k N, "
        "/modelo NOME, /reindexar, /pasta CAMINHO, /nova, /denovo, /limpar, /sessoes, /retomar N, "
        "/salvar ARQUIVO, /copiar, /info, /set NOME VALOR, /editar (e sair)\n"
    )
    for command in COMMANDS:
        assert command.usage in hint


def test_a_quit_word_is_a_command_only_as_the_whole_line(new_session: NewSession) -> None:
    session = new_session()
    assert handle_line("sair xyzzy plugh quux", session)  # a question, not covered
    assert messages.ANSWER_NOT_COVERED in _said(session)
    assert not handle_line("  Sair ", new_session())
