"""One dense-retrieval phase in a fresh process: `python -m bench.dense_phase PHASE DOCS CACHE`.

Each phase opens the index built by the main bench and uses the real bundled model
(`BundledE5`), so every timing includes what a user's process pays. Prints one JSON object.

- fill: the vector store filled as if the whole collection had been embedded: real vectors
  for the lexical candidates of the warm questions, random unit vectors for every other
  window (embedding 100k chunks for real would take a day).
- warm: a new process opens the filled store (time, resident memory added) and times whole
  retrievals of questions whose candidates all have vectors.
- cold: an empty store; the time from opening the index to the first question's passages,
  then the extra time of questions none of whose candidates are embedded, with every window
  of their candidates embedded (a store's client, `--dense-ci`) and as the commands ask
  them before the collection is embedded (a few windows each).
- pass: `embed_pending` over a fixed slice of chunks, in a store of its own, for a bounded
  time: windows and chunks per second.
- resume: the background pass a new session starts on the filled store, twice: the first
  walks every window to find nothing missing and marks the collection complete, the second
  finds the mark (the time and memory each session paid before and after the mark).
- whole: after resume, warm questions of a new process that finds the store marked
  complete, so the whole collection is ranked by the model too.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from bench.corpus import queries
from docai.index import vector_store
from docai.retrieval.dense import DenseRanking, open_dense_ranking
from docai.retrieval.embedders import BundledE5
from docai.retrieval.params import DEFAULT_PARAMS
from docai.retrieval.search_index import SearchIndex, open_index
from docai.retrieval.verdict import search
from docai.retrieval.windows import windows
from docai.settings import Settings

TOP_K = 3
WARM_QUESTIONS = 4
WARM_REPEATS = 5  # each repeat with a new DenseRanking: no question or window cached
COLD_QUESTIONS = 3
PASS_START = 1_000  # the slice of chunks the background pass embeds (a fixed one)
PASS_CHUNKS = 150
PASS_SECONDS = 60.0  # the pass stops (between steps) after this long
EMBED_BATCH = 8


def main(argv: list[str]) -> int:
    phase, docs, cache = argv
    settings = Settings(docs_dir=Path(docs), cache_dir=Path(cache))
    started = perf_counter()
    index, report = open_index(settings)
    opened = {"open_index_s": perf_counter() - started, "chunks": report.chunks,
              "cache_status": report.cache_status}
    cache_dir = settings.resolved_cache_dir()
    run = {"fill": _fill, "warm": _warm, "cold": _cold, "pass": _pass, "resume": _resume,
           "whole": _whole}[phase]
    print(json.dumps(opened | run(index, cache_dir, started)))
    return 0


def questions(index: SearchIndex, count: int, skip: int = 0) -> Iterator[str]:
    """Bench questions with lexical candidates, in a fixed order (the same in every phase)."""
    found = 0
    for question in queries(400, seed=23):
        if index.rank(question, TOP_K) is None:
            continue
        found += 1
        if found > skip:
            yield question
        if found == skip + count:
            return


def window_texts(index: SearchIndex, row: int) -> tuple[str, ...]:
    params = DEFAULT_PARAMS
    return windows(index.chunks.texts[row], params.window_chars, params.window_overlap)


def candidates(index: SearchIndex, question: str) -> np.ndarray:
    ranking = index.rank(question, TOP_K)
    assert ranking is not None
    return ranking[0][: DEFAULT_PARAMS.dense_candidates]


def _fill(index: SearchIndex, cache_dir: Path, _: float) -> dict[str, Any]:
    embedder = BundledE5()
    started = perf_counter()
    keys = [vector_store.checksum(text)
            for row in range(len(index.chunks)) for text in window_texts(index, row)]
    unique = list(dict.fromkeys(keys))
    keyed_s = perf_counter() - started
    wanted: dict[str, str] = {}
    for question in questions(index, WARM_QUESTIONS):
        for row in candidates(index, question).tolist():
            for text in window_texts(index, row):
                wanted.setdefault(vector_store.checksum(text), text)
    started = perf_counter()
    real = {}
    texts = list(wanted.items())
    for start in range(0, len(texts), EMBED_BATCH):
        batch = texts[start : start + EMBED_BATCH]
        vectors = embedder.embed_passages([text for _, text in batch])
        real.update(zip([key for key, _ in batch], vectors, strict=True))
    embedded_s = perf_counter() - started
    dimension = len(next(iter(real.values())))
    rng = np.random.default_rng(14)
    matrix = rng.standard_normal((len(unique), dimension), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    for row, key in enumerate(unique):
        if key in real:
            matrix[row] = real[key]
    path = vector_store.store_path(cache_dir, embedder.name)
    started = perf_counter()
    vector_store.save(path, vector_store.StoredVectors(
        model=embedder.name,
        keys=np.asarray(unique, dtype=vector_store.CHECKSUM_DTYPE),
        vectors=matrix,
    ))
    return {
        "windows": len(keys), "unique_windows": len(unique), "keyed_s": keyed_s,
        "candidate_windows": len(real), "embed_s": embedded_s,
        "save_s": perf_counter() - started, "store_bytes": _size(path),
    }


def _warm(index: SearchIndex, cache_dir: Path, _: float) -> dict[str, Any]:
    embedder = BundledE5()
    path = vector_store.store_path(cache_dir, embedder.name)
    before = _resident_mb()
    started = perf_counter()
    dense = open_dense_ranking(index.chunks, embedder, cache_dir)
    open_s = perf_counter() - started
    opened = _resident_mb()
    stored = len(dense.vectors)
    embedder.embed_queries(["aquecimento do modelo"])  # the model loads once per session
    with_model = _resident_mb()
    asked = list(questions(index, WARM_QUESTIONS))
    dense_ms, lexical_ms = [], []
    for _ in range(WARM_REPEATS):
        for question in asked:
            fresh = DenseRanking(index.chunks, embedder, dense.vectors)
            started = perf_counter()
            search(index, question, TOP_K, dense=fresh)
            dense_ms.append((perf_counter() - started) * 1e3)
            started = perf_counter()
            search(index, question, TOP_K)
            lexical_ms.append((perf_counter() - started) * 1e3)
    return {
        "questions": asked, "samples": len(dense_ms),
        "p50_ms": float(np.percentile(dense_ms, 50)), "p95_ms": float(np.percentile(dense_ms, 95)),
        "lexical_p50_ms": float(np.percentile(lexical_ms, 50)),
        "embedded_while_timed": len(dense.vectors) - stored, "stored_windows": stored,
        "store_bytes": _size(path), "open_store_s": open_s,
        "store_resident_mb": opened - before, "model_resident_mb": with_model - opened,
        "questions_resident_mb": _resident_mb() - with_model,
        "notices": dense.vectors.notices,
    }


def _whole(index: SearchIndex, cache_dir: Path, _: float) -> dict[str, Any]:
    """After `resume` marked the filled store complete: a new process finds the mark, so the
    dense ranking of the whole collection joins the fusion (`dense_full_weight`). The first
    question stacks every window's vector (timed alone, with the memory it adds); the warm
    questions are then timed with the question embedded anew each time, as in `_warm`.
    Default settings: the whole-collection ranking is on once a collection is embedded."""
    embedder = BundledE5()
    dense = open_dense_ranking(index.chunks, embedder, cache_dir)
    embedder.embed_queries(["aquecimento do modelo"])
    began = perf_counter()
    complete = dense.known_complete()
    mark_s = perf_counter() - began
    asked = list(questions(index, WARM_QUESTIONS))
    before = _resident_mb()
    began = perf_counter()
    search(index, asked[0], TOP_K, dense=dense)
    first_s = perf_counter() - began
    stacked_mb = _resident_mb() - before
    whole_ms = []
    for _ in range(WARM_REPEATS):
        for question in asked:
            dense.job.questions.clear()  # embedded anew, as a new question is
            began = perf_counter()
            search(index, question, TOP_K, dense=dense)
            whole_ms.append((perf_counter() - began) * 1e3)
    return {"complete": complete, "mark_s": mark_s, "first_s": first_s,
            "resident_mb": stacked_mb, "samples": len(whole_ms),
            "p50_ms": float(np.percentile(whole_ms, 50)),
            "p95_ms": float(np.percentile(whole_ms, 95))}


def _cold(index: SearchIndex, cache_dir: Path, started: float) -> dict[str, Any]:
    """`started` is before the index was opened: the first answer counts from there."""
    embedder = BundledE5()
    # As with no store at all: nothing read, and what it embeds replaces any earlier file.
    dense = open_dense_ranking(index.chunks, embedder, cache_dir, rebuild=True)
    asked = questions(index, 1 + COLD_QUESTIONS * 3)
    first = next(asked)
    search(index, first, TOP_K, dense=dense)
    first_answer_s = perf_counter() - started
    first_windows = len(dense.vectors)
    extra_s, embedded, cold_asked = [], [], []
    for question in asked:
        keys = [vector_store.checksum(text) for row in candidates(index, question).tolist()
                for text in window_texts(index, row)]
        if len(dense.vectors.missing(keys)) < len(set(keys)):
            continue  # an earlier question embedded some of its candidates
        count = len(dense.vectors)
        began = perf_counter()
        search(index, question, TOP_K, dense=dense)
        cold = perf_counter() - began
        embedded.append(len(dense.vectors) - count)
        fresh = DenseRanking(index.chunks, embedder, dense.vectors)
        began = perf_counter()
        search(index, question, TOP_K, dense=fresh)
        extra_s.append(cold - (perf_counter() - began))
        cold_asked.append(question)
        if len(cold_asked) == COLD_QUESTIONS:
            break
    total_windows = sum(len(window_texts(index, row)) for row in range(len(index.chunks)))
    return {
        "first_question": first, "first_answer_s": first_answer_s,
        "first_windows": first_windows, "questions": cold_asked,
        "extra_s": extra_s, "extra_p50_s": float(np.median(extra_s)) if extra_s else None,
        "embedded": embedded, "windows": total_windows,
        **_bounded(index, embedder, cold_asked),
    }


def _bounded(index: SearchIndex, embedder: BundledE5, asked: list[str]) -> dict[str, Any]:
    """The same questions as every command asks them before the collection is embedded
    (`bounded_until_complete`, an empty store, the engine loaded): each one's extra time
    over the words alone, and the windows it embedded."""
    extra_s, embedded = [], []
    with tempfile.TemporaryDirectory() as empty:
        dense = open_dense_ranking(index.chunks, embedder, Path(empty),
                                   bounded_until_complete=True)
        for question in asked:
            began = perf_counter()
            search(index, question, TOP_K)
            words = perf_counter() - began
            began = perf_counter()
            search(index, question, TOP_K, dense=dense)
            extra_s.append(perf_counter() - began - words)
            cost = dense.last_question
            embedded.append(cost.embedded if cost is not None else 0)
    return {"bounded_extra_s": extra_s, "bounded_embedded": embedded,
            "bounded_extra_p50_s": float(np.median(extra_s)) if extra_s else None}


def _pass(index: SearchIndex, cache_dir: Path, _: float) -> dict[str, Any]:
    del cache_dir  # a store of its own: the rate of a pass from nothing
    embedder = BundledE5()
    embedder.embed_queries(["aquecimento do modelo"])
    start = min(PASS_START, max(len(index.chunks) - PASS_CHUNKS, 0))
    chunks = index.chunks.slice(start, min(start + PASS_CHUNKS, len(index.chunks)))
    with tempfile.TemporaryDirectory(prefix="docai-bench-pass-") as store:
        dense = open_dense_ranking(chunks, embedder, Path(store))
        began = perf_counter()
        report = dense.embed_pending(stop=lambda: perf_counter() - began > PASS_SECONDS,
                                     prune=False)
        seconds = perf_counter() - began
    return {
        "slice_chunks": len(chunks), "embedded": report.embedded,
        "chunks_done": report.chunks_done, "seconds": seconds,
        "windows_per_s": report.embedded / seconds, "chunks_per_s": report.chunks_done / seconds,
    }


def _resume(index: SearchIndex, cache_dir: Path, _: float) -> dict[str, Any]:
    embedder = BundledE5()  # never loaded: nothing is missing
    result: dict[str, Any] = {}
    for label in ("walk", "marked"):
        dense = open_dense_ranking(index.chunks, embedder, cache_dir)
        before = _resident_mb()
        began = perf_counter()
        report = dense.embed_pending()
        result[f"{label}_s"] = perf_counter() - began
        result[f"{label}_resident_mb"] = _resident_mb() - before
        result[f"{label}_complete"] = report.complete and report.embedded == 0
    return result


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _resident_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
