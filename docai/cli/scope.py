"""A question asked about part of a collection: `--only PATH`, `/pasta PATH` and
`@arquivo.md` in the REPL.

The part is an index of its own over the chunks whose source is the file or lies under the
folder, built from the stored counts (nothing is read again): a question is ranked and
judged as it would be with `--docs` pointing at that folder, and whether the part covers
it is said as for any folder. Ranking by meaning needs the whole collection's vectors, so
a restricted question is ranked by words (said once).
"""

from __future__ import annotations

import numpy as np

from docai import messages
from docai.errors import SettingsError
from docai.index.matrix import TermMatrix
from docai.retrieval.search_index import SearchIndex


def normalised(path: str) -> str:
    """A source path as the index writes them: relative, with `/`, no `./` or end slash."""
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.strip("/")


def within(source: str, path: str) -> bool:
    """Whether `source` is the file `path` or lies in the folder `path`."""
    return source == path or source.startswith(path + "/")


def restricted(index: SearchIndex, path: str) -> SearchIndex:
    """`index` reduced to the sources under `path` (a file or folder of the collection);
    SettingsError naming the path, with a few of the collection's folders, when none is."""
    wanted = normalised(path)
    sources, source_of = index.chunks.sources_by_name()
    keep = np.array([bool(wanted) and within(source, wanted) for source in sources], dtype=bool)
    rows = np.flatnonzero(keep[source_of]) if len(sources) else np.array([], dtype=np.int64)
    if len(rows) == 0:
        folders = sorted({source.split("/", 1)[0] for source in sources if "/" in source})
        raise SettingsError(messages.ONLY_NOTHING_THERE.format(
            path=path, folders=", ".join(folders[:8]) or "—"))
    matrix = index.matrix
    part = TermMatrix(matrix.vocabulary, matrix.counts.take_rows(rows))
    return SearchIndex([index.chunks[int(row)] for row in rows], part, index.method,
                       params=index.params)
