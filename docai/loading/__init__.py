"""Document loading: find the docs files under a folder and turn each into a Document.

`discover` walks the folder; `load_file` reads, decodes and parses one file and never
raises for a bad file (it returns a `Skipped` with the reason instead). The parsers are
pure functions of text, usable without touching the disk.
"""

from docai.loading.discover import discover
from docai.loading.formats import SUPPORTED_SUFFIXES
from docai.loading.html import parse_html
from docai.loading.load import LoadResult, load_file, source_name
from docai.loading.markdown import parse_markdown
from docai.loading.reading import DEFAULT_MAX_BYTES
from docai.loading.text import parse_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SUPPORTED_SUFFIXES",
    "LoadResult",
    "discover",
    "load_file",
    "parse_html",
    "parse_markdown",
    "parse_text",
    "source_name",
]
