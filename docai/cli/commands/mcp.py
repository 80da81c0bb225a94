"""`docai mcp`: serve the docs folder's retrieval to coding agents over MCP (stdio).

stdout is the protocol's channel, so everything docai says (index notes, the ready line)
goes to stderr, and no progress bar is drawn. The SDK is an optional extra (`docai[mcp]`):
without it, one line says how to install it.
"""

from __future__ import annotations

import sys

from docai import messages
from docai.cli.repl.reopen import FollowedIndex
from docai.cli.startup import open_retrieval
from docai.cli.terminal_text import one_line
from docai.errors import DocaiError
from docai.index.freshness import folder_state
from docai.settings import QUIET, Settings


def run(settings: Settings) -> int:
    try:
        from docai.mcp_server import build_server
        from docai.mcp_stdio import relay_stdin
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        raise DocaiError(messages.MCP_MISSING) from None
    state = None if settings.store else folder_state(settings)  # followed from now on
    opened = open_retrieval(settings, sys.stderr, progress=False)
    if settings.verbosity > QUIET:
        report = opened.report
        where = (messages.MCP_STORE_WHERE.format(collection=settings.resolved_collection())
                 if settings.store
                 else messages.MCP_FOLDER_WHERE.format(docs=settings.shown_docs()))
        print(messages.MCP_READY.format(chunks=report.chunks, files=report.files,
                                        where=one_line(where)),
              file=sys.stderr, flush=True)
    relay_stdin()
    build_server(FollowedIndex(opened, settings, state).current, settings).run("stdio")
    return 0
