"""Document loading: find the docs files under a folder and turn each into a Document.

`discover` walks the folder; `load_file` reads, decodes and parses one file and never
raises for a bad file (it returns a `Skipped` with the reason instead). The parsers
(`markdown.parse_markdown`, `html.parse_html`, `text.parse_text`) are pure functions of
text, usable without touching the disk.
"""

from docai.loading.discover import discover, unsupported_suffixes
from docai.loading.formats import PARSER_VERSION, SUPPORTED_SUFFIXES
from docai.loading.load import LoadResult, load_file, source_name
from docai.loading.reading import DEFAULT_MAX_BYTES

__all__ = [
    "DEFAULT_MAX_BYTES",
    "PARSER_VERSION",
    "SUPPORTED_SUFFIXES",
    "LoadResult",
    "discover",
    "load_file",
    "source_name",
    "unsupported_suffixes",
]
