"""`docai index`: build or refresh the index and say what changed and how long it took.

Exit status 2 when nothing could be indexed (as the other commands refuse to start then),
or when the index could not be saved (an unwritable, full or misplaced cache folder), each
after the full account, so the user sees what was built, which files were skipped and why.
Not saving is a failure here, unlike for the other commands (which answer from the index in
memory and warn): saving is what `docai index` is run for. 2, not 1, because the fix is the
user's (a writable `--cache-dir`), as with every `DocaiError`; 1 means the model failed.

Then every chunk is embedded for the dense ranking, once embedded the whole collection is
ranked by meaning too: always when the windows left to embed are few (`UP_FRONT_WINDOWS`,
under a minute with the bundled model here), and with `--embed` whatever their number (for
someone about to ask many questions, or before going offline from an Ollama embedder);
otherwise the REPL embeds the rest while it waits, and a line says how far it is. Ctrl-C
keeps what was embedded (exit 130), and the next run goes on from there.
"""

from __future__ import annotations

import sys
import time

from docai import messages
from docai.cli.output.report import status_lines, summary_lines
from docai.cli.progress import progress_bar
from docai.cli.startup import announce_embedder, dense_coverage, empty_index_problem
from docai.cli.terminal_text import strip_controls
from docai.errors import SettingsError
from docai.index.build import build_index
from docai.index.chunk_table import ChunkTable
from docai.retrieval import dedup
from docai.retrieval.dense import open_dense
from docai.settings import QUIET, Settings

# At most this many windows without vectors are embedded by a plain `docai index`: under a
# minute with the bundled model on a quiet 2-core machine (about 20 windows/s in make bench's
# `bench.first_question`; a CPU busy with other work can be ten times slower, and Ctrl-C
# keeps what was done), once, after the index itself. That is a folder of about 400 chunks
# (the docai guide: 119 chunks, about 170 windows; the Debian FAQ: 181 chunks, 486 windows).
UP_FRONT_WINDOWS = 1000


def run(settings: Settings, *, embed: bool = False) -> int:
    if embed and not settings.dense:
        raise SettingsError(messages.INDEX_EMBED_NEEDS_DENSE)
    if settings.store:
        from docai.store.commands import run_index

        return run_index(settings, embed=embed)
    stored, report = build_index(settings, progress=progress_bar)
    for line in status_lines(report):
        print(line, file=sys.stderr)
    cache_dir = settings.resolved_cache_dir()
    for line in summary_lines(report, settings.shown_docs(), cache_dir):
        print(line)
    if copies := dedup.duplicate_count(stored.chunks.texts):
        print(messages.INDEX_DUPLICATES.format(count=copies))
    problems = [empty_index_problem(report, settings)]
    if report.cache_warning is not None:
        problems.append(messages.INDEX_NOT_SAVED.format(path=cache_dir))
    for problem in filter(None, problems):
        print(messages.ERROR_PREFIX.format(message=problem), file=sys.stderr)
    if any(problems):
        return 2
    if not embed and not settings.dense:
        return 0
    return _embed_all(settings, stored.chunks, asked=embed)


def _embed_all(settings: Settings, chunks: ChunkTable, *, asked: bool) -> int:
    """Embed every chunk still without vectors (unless not `asked` and more than
    `UP_FRONT_WINDOWS` windows are missing: then say how far it is); 1 when the embedder
    failed on `--embed`."""
    def warn(line: str) -> None:
        print(strip_controls(line), file=sys.stderr, flush=True)

    dense = open_dense(settings, chunks, warn=warn)
    if dense is None:  # no chunks
        return 0
    if not asked:
        missing = dense.windows_to_embed(UP_FRONT_WINDOWS)
        if missing == 0:
            return 0
        if missing is None:
            if settings.verbosity > QUIET:
                print(dense_coverage(dense), file=sys.stderr)
            return 0
    announce_embedder(dense, settings, sys.stderr)
    started = time.monotonic()
    try:
        done = dense.embed_pending(progress=progress_bar)
    except KeyboardInterrupt:
        print(messages.INDEX_EMBED_INTERRUPTED, file=sys.stderr)
        return 130
    finally:
        dense.embedder.close()
    if not done.complete:  # the embedder failed: `warn` said why
        return 1 if asked else 0
    if (reason := dense.vectors.save_error) is not None:  # as for the index: the user's fix
        print(messages.ERROR_PREFIX.format(message=messages.INDEX_EMBEDDINGS_NOT_SAVED.format(
            path=dense.vectors.path, reason=reason)), file=sys.stderr)
        return 2
    print(messages.INDEX_EMBEDDED.format(
        windows=done.embedded, chunks=done.chunks, seconds=time.monotonic() - started))
    return 0
