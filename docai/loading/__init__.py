"""Document loading: find the docs files under a folder and turn each into a Document.

`scan` walks the folder (`discover` when only the files matter); `load_file` reads,
decodes and parses one file and never raises for a bad file (it returns a `Skipped` with
the reason instead). The parsers
(`markdown.parse_markdown`, `html.parse_html`, `text.parse_text`) are pure functions of
text, usable without touching the disk. Names are kept exactly as the file system has
them (`source_name`); `display_name` is how any of them is shown on one line.
"""

import sys

from docai.loading.discover import Discovery, discover, scan
from docai.loading.formats import SUPPORTED_SUFFIXES
from docai.loading.load import LoadResult, load_file, outside_link_reason
from docai.loading.names import display_name, source_name
from docai.loading.reading import DEFAULT_MAX_BYTES
from docai.versioning import code_version

# Bump whenever a parser's output for a given file changes: cached chunks are keyed on it,
# so every file is parsed again rather than kept as the old parser left it. A hash of every
# loading module and the parsing libraries' versions is added anyway.
PARSER_VERSION = code_version(
    "6", modules=[sys.modules[__name__]],
    packages=["markdown-it-py", "lxml", "docutils", "pypdfium2"],
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "PARSER_VERSION",
    "SUPPORTED_SUFFIXES",
    "Discovery",
    "LoadResult",
    "discover",
    "display_name",
    "load_file",
    "outside_link_reason",
    "scan",
    "source_name",
]
