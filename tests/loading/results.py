"""What a loaded file gave, for the reader tests: its document, or why it was skipped."""

from __future__ import annotations

from docai.loading.load import LoadResult
from docai.records import Document


def document(result: LoadResult) -> Document:
    assert result.skipped is None, result.skipped
    assert result.document is not None
    return result.document


def reason(result: LoadResult) -> str:
    assert result.document is None and result.skipped is not None
    return result.skipped.reason
