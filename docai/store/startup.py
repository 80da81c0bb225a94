"""What a command opens first when the index is the shared store: the collection, as an
index the verdict and the answerer use as they use a local one."""

from __future__ import annotations

from typing import TextIO

from docai.cli.startup import Opened
from docai.index.build_report import BuildReport, PhaseTimings
from docai.settings import Settings
from docai.store.search import StoreIndex


def open_store(settings: Settings, err: TextIO, *, announce: bool = True) -> Opened:
    """The collection of `settings` (StoreError when it cannot be read). A client never
    writes: dense ranking over the store is `docai.store.dense`, vectors read only."""
    docs = settings.docs_dir if settings.docs_dir.is_dir() else None
    index = StoreIndex(settings.store or "", settings.resolved_collection(), settings.retrieval,
                       docs_dir=docs)
    dense = None
    if settings.dense:
        from docai.store.dense import open_store_dense

        dense = open_store_dense(settings, index, err, announce=announce)
    report = BuildReport(
        files=index.chunks.file_count(), new=0, changed=0, removed=0, unchanged=0,
        skipped=(), notices=(), sections=0, chunks=len(index), tokens=0,
        timings=PhaseTimings(0, 0, 0, 0), cache_status=None, cache_warning=None)
    return Opened(index, report, dense)  # type: ignore[arg-type]
