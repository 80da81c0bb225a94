"""docai's retrieval as a Model Context Protocol server, for coding agents.

Two read-only tools over one opened index: `search_docs(query, k)`, which returns exactly
what `docai search --json` prints for the same question (`commands.search.as_json`), and
`list_sources`. What a tool returns is made valid Unicode (`valid_values`): a file name that
is not UTF-8, or a query with a lone surrogate echoed back, would otherwise fail the SDK's
JSON encoding and leave the client without a reply. No model is called and nothing is
written: no log, no saved embeddings (a question's vectors stay in memory for the server's
life). Built on the official `mcp` SDK
(`MCPServer`), imported only by `docai mcp`.

The SDK runs each call in a worker thread, so calls run side by side. The index is asked
for (`current()`, which may rebuild it after the folder changed) by one call at a time:
twenty calls that arrive after a `git checkout` share one rebuild instead of each starting
its own. A question longer than `question_limit` allows is refused before any work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from docai import __version__, messages
from docai.byte_text import valid_values
from docai.cli.commands.search import as_json
from docai.cli.startup import Opened
from docai.errors import DocaiError
from docai.index.chunk_table import ChunkTable
from docai.question_limit import check_question
from docai.records import join_heading
from docai.retrieval.verdict import search
from docai.settings import MAX_TOP_K, Settings

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)


def build_server(current: Callable[[], Opened], settings: Settings) -> MCPServer[Any]:
    """The server; `current()` gives the index to search at each call (kept up with the
    folder by the caller)."""
    docs = (settings.resolved_collection() if settings.store  # a client may have no folder
            else str(settings.docs_dir.expanduser().resolve()))
    server: MCPServer[Any] = MCPServer(
        name="docai", version=__version__, log_level="WARNING",
        instructions=messages.MCP_INSTRUCTIONS.format(docs=docs))
    one_at_a_time = threading.Lock()

    def opened_now() -> Opened:
        with one_at_a_time:
            return current()

    def search_docs(
        query: Annotated[str, Field(description=messages.MCP_QUERY_DESCRIPTION)],
        k: Annotated[int, Field(description=messages.MCP_K_DESCRIPTION.format(
            max_k=MAX_TOP_K))] = settings.top_k,
    ) -> dict[str, Any]:
        if not query.strip():
            raise ToolError(messages.MCP_EMPTY_QUERY)
        try:
            check_question(query)
        except DocaiError as error:
            raise ToolError(str(error)) from None
        if not 1 <= k <= MAX_TOP_K:
            raise ToolError(messages.MCP_BAD_K.format(max_k=MAX_TOP_K, value=k))
        opened = opened_now()
        hits = search(opened.index, query, k, settings.min_coverage, opened.dense)
        return valid_values(as_json(query, hits))

    def list_sources() -> dict[str, Any]:
        chunks = opened_now().index.chunks
        listed = (sources(chunks) if isinstance(chunks, ChunkTable)
                  else outlined(chunks.outline()))  # a shared store's collection
        return valid_values({"docs": docs, "sources": listed})

    server.add_tool(search_docs, name="search_docs", annotations=READ_ONLY,
                    description=messages.MCP_SEARCH_DESCRIPTION.format(
                        max_k=MAX_TOP_K, k=settings.top_k))
    server.add_tool(list_sources, name="list_sources", annotations=READ_ONLY,
                    description=messages.MCP_SOURCES_DESCRIPTION)
    return server


def outlined(files: list[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    """`sources`' entries from each file's heading paths in chunk order."""
    return sorted(({"source": source, "chunks": len(headings),
                    "headings": list(dict.fromkeys(h for h in headings if h))}
                   for source, headings in files), key=lambda entry: entry["source"])


def sources(table: ChunkTable) -> list[dict[str, Any]]:
    """Each indexed file once, in name order, with its chunk count and distinct headings
    (read from the table's columns: no chunk text is decoded)."""
    parts = list(table.heading_parts)
    offsets = table.heading_offsets.tolist()
    headings: dict[int, dict[str, None]] = {}
    counts: dict[int, int] = {}
    for row, source in enumerate(table.source_ids.tolist()):
        counts[source] = counts.get(source, 0) + 1
        heading = join_heading(tuple(parts[offsets[row]:offsets[row + 1]]))
        if heading:
            headings.setdefault(source, {})[heading] = None
    listed = [{"source": table.sources[source], "chunks": count,
               "headings": list(headings.get(source, {}))} for source, count in counts.items()]
    return sorted(listed, key=lambda entry: entry["source"])
