"""Each format's build against its HTML twin's: `python -m bench.formats`.

The twins of `scripts/eval_formats.py` (the same documents as HTML and as reST, PDF, EPUB or
AsciiDoc, from Debian's packages) are each indexed from an empty cache, words only, in this
process after one untimed build of every form (so imports and disk caches do not favour a
form), three times; the median beside the HTML form's, target at most 1.5x. Prints one line
per form and writes bench/formats_results.json. The twins are fetched first when missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from time import perf_counter

from docai.retrieval.search_index import open_index
from docai.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from eval_formats import DATA, TWINS, fetch, missing, on_disk  # type: ignore[import-not-found]  # noqa: E402

TARGET = 1.5
RUNS = 3


def build_seconds(docs: Path) -> tuple[float, int]:
    """Seconds to index `docs` from an empty cache, and its chunk count."""
    with tempfile.TemporaryDirectory(prefix="docai-bench-formats-") as scratch:
        started = perf_counter()
        _, report = open_index(Settings(docs_dir=docs, cache_dir=Path(scratch), dense=False))
        return perf_counter() - started, report.chunks


def measure() -> list[dict[str, object]]:
    forms = [(twin.name, form.label, DATA / form.folder)
             for twin in TWINS if on_disk(twin) for form in twin.forms]
    for _, _, folder in forms:
        build_seconds(folder)
    rows: list[dict[str, object]] = []
    html: dict[str, float] = {}
    for twin, label, folder in forms:
        timings = [build_seconds(folder) for _ in range(RUNS)]
        seconds = median(t for t, _ in timings)
        html.setdefault(twin, seconds)  # each twin's first form is its HTML
        rows.append({"twin": twin, "form": label, "chunks": timings[0][1],
                     "build_s": round(seconds, 3), "ratio": round(seconds / html[twin], 2)})
    return rows


def lines(rows: list[dict[str, object]]) -> list[str]:
    out = []
    for row in rows:
        ratio = float(row["ratio"])  # type: ignore[arg-type]
        verdict = "" if row["form"] == "HTML" else (
            f" ({'ok' if ratio <= TARGET else 'ACIMA'} <= {TARGET:g}x)")
        out.append(f"formatos, {row['twin']} {row['form']}: {row['chunks']} trechos, "
                   f"{row['build_s']:.2f} s = {ratio:.2f}x o HTML{verdict}")
    return out


def main() -> int:
    if missing():
        try:
            fetch(missing())
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"formatos: os gêmeos do Debian não baixaram ({error}); tente "
                  "`python scripts/eval_formats.py --fetch` (fica de fora desta vez)")
            return 0
    rows = measure()
    print("\n".join(lines(rows)))
    Path(__file__).with_name("formats_results.json").write_text(
        json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
