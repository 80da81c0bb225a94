"""Dense re-ranking over real indexes of real files, with embeddings from an Ollama-protocol
server on 127.0.0.1 (deterministic vectors) and the vector store in tmp_path."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from docai import messages
from docai.index import vector_store
from docai.retrieval.dense import DenseRanking, open_dense_ranking
from docai.retrieval.params import DEFAULT_PARAMS, RetrievalParams
from docai.retrieval.search_index import SearchIndex, covers, open_index
from docai.retrieval.server_embedders import OllamaEmbedder
from docai.retrieval.verdict import search
from docai.retrieval.window_vectors import WindowVectors
from docai.retrieval.windows import windows
from docai.settings import Settings
from tests.support.fake_embeddings import EmbeddingOllama
from tests.support.network import closed_port_url

MODEL = "all-minilm"  # no task prompts: the server sees window texts as they are
TOPICS = ("instalação", "configuração", "desempenho", "temas", "plugins", "servidor",
          "backup", "senha", "rede", "cache", "idioma", "atalhos")
QUESTIONS = ("como instalo os plugins?", "onde fica a configuração do servidor?",
             "o desempenho dos temas", "pip install docai")


def write_docs(folder: Path) -> Path:
    """Twelve files of three sections each, every section long enough for two windows;
    half of them speak of installing with pip."""
    folder.mkdir()
    for number, topic in enumerate(TOPICS):
        sections = []
        for part in range(3):
            common = "instale, configure e rode com pip install docai" if number % 2 else ""
            paragraphs = [
                f"O {topic} da parte {part} explica o passo {step} {common} ({topic}, {step})."
                for step in range(8)
            ]
            sections.append(f"## {topic.title()} {part}\n\n" + "\n\n".join(paragraphs))
        (folder / f"{number}-{topic}.md").write_text(
            f"# {topic.title()}\n\n" + "\n\n".join(sections), encoding="utf-8")
    return folder


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "docs")


@pytest.fixture
def fake() -> Iterator[EmbeddingOllama]:
    with EmbeddingOllama() as server:
        yield server


def index_of(docs: Path, cache: Path) -> tuple[SearchIndex, Path]:
    settings = Settings(docs_dir=docs, cache_dir=cache)
    index, _ = open_index(settings)
    return index, settings.resolved_cache_dir()


@contextmanager
def dense_for(
    index: SearchIndex, cache_dir: Path, url: str, warnings: list[str] | None = None,
    params: RetrievalParams = DEFAULT_PARAMS,
) -> Iterator[DenseRanking]:
    """A session's dense ranking; what its questions embedded is saved at the end, as the
    commands save it after their output."""
    embedder = OllamaEmbedder(url, MODEL, retries=0)
    sink = warnings if warnings is not None else []
    ranking = open_dense_ranking(index.chunks, embedder, cache_dir, warn=sink.append,
                                 params=params)
    try:
        yield ranking
    finally:
        ranking.save()
        embedder.close()


def count_store_writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gains an item at every write of a vector store."""
    writes: list[int] = []
    real_save = vector_store.save

    def counted_save(*args: object, **kwargs: object) -> None:
        writes.append(1)
        real_save(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_store, "save", counted_save)
    return writes


def all_windows(index: SearchIndex) -> set[str]:
    return {w for chunk in index.chunks
            for w in windows(chunk.text, DEFAULT_PARAMS.window_chars)}


def results(index: SearchIndex, dense: DenseRanking) -> list[list[tuple[str, int, float]]]:
    return [[(hit.chunk.source, hit.chunk.ordinal, round(hit.score, 9))
             for hit in search(index, question, 5, 0.0, dense)] for question in QUESTIONS]


CANDIDATES_ONLY = replace(DEFAULT_PARAMS, dense_full_weight=0.0)
WHOLE_TOO = replace(DEFAULT_PARAMS, dense_full_weight=1.0)


def test_the_candidates_rank_the_same_whether_or_not_a_background_pass_ran(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cold_dir = index_of(docs, tmp_path / "cold")
    _, warm_dir = index_of(docs, tmp_path / "warm")
    with dense_for(index, warm_dir, fake.url, params=CANDIDATES_ONLY) as warm:
        report = warm.embed_pending()
        assert report.complete and report.embedded == len(all_windows(index))
        warm_results = results(index, warm)
    sent = len(fake.embedded_texts())
    with dense_for(index, cold_dir, fake.url, params=CANDIDATES_ONLY) as cold:
        cold_results = results(index, cold)

    assert cold_results == warm_results
    lexical = [[(h.chunk.source, h.chunk.ordinal) for h in index.search(q, 5, 0.0)]
               for q in QUESTIONS]
    assert lexical != [[(s, o) for s, o, _ in found] for found in cold_results]  # it re-ranked
    cold_windows = [t for t in fake.embedded_texts()[sent:] if t not in QUESTIONS]
    # Only the candidates were embedded, each window once.
    assert len(cold_windows) == len(set(cold_windows)) < len(all_windows(index))


def test_an_interrupted_background_pass_resumes_where_it_stopped(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        # "stop" after 16 windows (the REPL got a question, or exit): heard between batches
        first = dense.embed_pending(stop=lambda: len(fake.embedded_texts()) >= 16, step=16)
    assert 16 <= first.embedded < len(all_windows(index)) and not first.complete

    with dense_for(index, cache_dir, fake.url) as dense:  # a new session, from the store
        second = dense.embed_pending()
    assert second.complete
    assert first.embedded + second.embedded == len(all_windows(index))
    assert sorted(fake.embedded_texts()) == sorted(all_windows(index))  # nothing twice
    stored = vector_store.load(vector_store.store_path(cache_dir, "ollama/" + MODEL),
                               "ollama/" + MODEL)
    assert stored is not None and len(stored.keys) == len(all_windows(index))


def test_ctrl_c_during_a_cold_question_stops_it_and_keeps_what_it_embedded(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        real = dense.embedder.embed_passages
        calls: list[int] = []

        def interrupted(texts: list[str]) -> np.ndarray:
            calls.append(len(texts))
            if len(calls) == 3:
                raise KeyboardInterrupt
            return real(texts)

        dense.embedder.embed_passages = interrupted  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            search(index, QUESTIONS[0], 3, 0.0, dense)
        kept = len(dense.vectors)
        dense.embedder.embed_passages = real  # type: ignore[method-assign]
        sent = len(fake.embedded_texts())
        assert search(index, QUESTIONS[0], 3, 0.0, dense)  # asked again: goes on from there
        again = [t for t in fake.embedded_texts()[sent:] if t not in QUESTIONS]
    assert len(calls) == 3 and kept == calls[0] + calls[1]  # the two batches before it
    assert not set(again) & set(fake.embedded_texts()[:sent])  # none embedded twice


def test_ctrl_c_during_a_pass_loses_at_most_one_step(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        real = dense.embedder.embed_passages
        calls = []

        def interrupted(texts: list[str]) -> np.ndarray:
            calls.append(len(texts))
            if len(calls) == 4:
                raise KeyboardInterrupt
            return real(texts)

        dense.embedder.embed_passages = interrupted  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            dense.embed_pending(step=16)
    stored = vector_store.load(vector_store.store_path(cache_dir, "ollama/" + MODEL),
                               "ollama/" + MODEL)
    assert stored is not None and len(stored.keys) == sum(calls[:3])


def test_progress_counts_chunks_from_where_the_store_left_off(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    shown: list[tuple[str, int, int]] = []
    advanced: list[int] = []

    @contextmanager
    def progress(label: str, total: int, done: int) -> Iterator:
        shown.append((label, total, done))
        yield advanced.append

    few = replace(DEFAULT_PARAMS, dense_candidates=3)
    with dense_for(index, cache_dir, fake.url, params=few) as dense:
        search(index, QUESTIONS[0], 3, None, dense)  # embeds its three candidates
        complete = sum(dense.windows.complete_row(row) for row in range(len(index)))
        dense.embed_pending(progress=progress, step=16)
    [(label, total, done)] = shown
    assert (label, total) == (messages.DENSE_PROGRESS, len(index))
    assert done == complete == 3  # wherever they are in the collection
    assert done + sum(advanced) == total


def test_the_count_of_embedded_chunks_survives_a_changed_file(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    """A file changed in the middle of an embedded collection lowers the count by its own
    new chunks, not to the first of them (it read "19 de 425" after "172/424")."""
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        dense.embed_pending()
    changed = sorted(docs.iterdir())[5]
    changed.write_text(changed.read_text(encoding="utf-8") + "\n\nUm parágrafo novo.\n",
                       encoding="utf-8")
    index, cache_dir = index_of(docs, cache_dir.parent)
    new_rows = [row for row in range(len(index)) if index.chunks[row].source == changed.name]
    with dense_for(index, cache_dir, fake.url) as dense:
        counted = dense.embedded_chunks()
        new = [row for row in new_rows if not dense.windows.complete_row(row)]
        assert new and min(new) < len(index) // 2
        assert counted == len(index) - len(new)


def test_a_failing_embedder_warns_once_and_answers_lexically(
    docs: Path, tmp_path: Path
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    warnings: list[str] = []
    with EmbeddingOllama(embed_fail_after=0) as fake, dense_for(
        index, cache_dir, fake.url, warnings
    ) as dense:
        hits = [search(index, q, 3, 0.0, dense) for q in QUESTIONS]
        requests = len(fake.bodies("/api/embed"))
    assert [[h.chunk for h in found] for found in hits] == [
        [h.chunk for h in index.search(q, 3, 0.0)] for q in QUESTIONS]
    assert len(warnings) == 1 and warnings[0].startswith("busca densa desativada")
    assert "llama runner" in warnings[0]
    assert requests == 1 and not dense.active


def test_an_unreachable_server_is_one_warning(docs: Path, tmp_path: Path) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    warnings: list[str] = []
    with dense_for(index, cache_dir, closed_port_url(), warnings) as dense:
        assert search(index, QUESTIONS[0], 3, 0.0, dense)
    assert len(warnings) == 1


def test_a_damaged_store_is_reported_in_one_line_and_embedded_again(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        search(index, QUESTIONS[0], 3, 0.0, dense)
    store = vector_store.store_path(cache_dir, "ollama/" + MODEL)
    store.write_bytes(store.read_bytes()[:200])
    warnings: list[str] = []
    with dense_for(index, cache_dir, fake.url, warnings) as dense:
        assert search(index, QUESTIONS[0], 3, 0.0, dense)
    assert warnings == [messages.DENSE_STORE_REBUILT.format(
        model="ollama/" + MODEL, reason=messages.DENSE_STORE_CORRUPT.format(file=store.name))]
    assert vector_store.load(store, "ollama/" + MODEL) is not None  # healthy again


def test_an_unwritable_cache_folder_is_a_notice_not_a_crash(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, _ = index_of(docs, tmp_path / "cache")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    warnings: list[str] = []
    with dense_for(index, blocker, fake.url, warnings) as dense:
        assert search(index, QUESTIONS[0], 3, 0.0, dense)
    assert any(line.startswith("não consegui salvar os vetores") for line in warnings)


def test_vectors_of_windows_that_no_longer_exist_are_dropped_after_a_full_pass(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        dense.embed_pending()
    (docs / "0-instalação.md").write_text("# Outro\n\nTexto novo e curto.", encoding="utf-8")
    index, _ = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        report = dense.embed_pending()
    assert report.embedded == 1
    stored = vector_store.load(vector_store.store_path(cache_dir, "ollama/" + MODEL),
                               "ollama/" + MODEL)
    assert stored is not None
    assert set(stored.keys.tolist()) == {vector_store.checksum(w) for w in all_windows(index)}


def test_the_whole_collection_joins_the_ranking_only_once_every_chunk_has_vectors(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        full = dense.with_params(DEFAULT_PARAMS.__class__(dense_full_weight=1.0))
        query = full.question_vector(QUESTIONS[0])
        assert full.full_ranking(query) is None
        full.embed_pending()
        ranking = full.full_ranking(query)
    assert ranking is not None and len(ranking) == min(len(index), DEFAULT_PARAMS.rank_depth)


def test_once_the_collection_is_embedded_the_next_process_ranks_all_of_it_at_once(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url, params=WHOLE_TOO) as before:
        candidates_only = results(index, before.with_params(CANDIDATES_ONLY))
        assert before.embedded_chunks() < len(index)
        assert before.windows_to_embed(1000) == len(all_windows(index)) - len(
            before.vectors)
        assert results(index, before) == candidates_only  # not complete: no whole ranking
        before.embed_pending()
    with dense_for(index, cache_dir, fake.url, params=WHOLE_TOO) as after:  # a new process
        assert after.known_complete()
        assert after.embedded_chunks() == len(index) and after.windows_to_embed(1) == 0
        whole = results(index, after)
    assert whole != candidates_only  # the whole-collection ranking voted


def test_a_cold_question_embeds_at_most_its_budget_of_windows(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    budget = replace(DEFAULT_PARAMS, dense_candidates=30, dense_question_windows=6)
    with dense_for(index, cache_dir, fake.url, params=budget) as dense:
        sent = len(fake.embedded_texts())
        first = search(index, QUESTIONS[0], 5, 0.0, dense)
        cold = [t for t in fake.embedded_texts()[sent:] if t not in QUESTIONS]
        again = search(index, QUESTIONS[0], 5, 0.0, dense)
        later = [t for t in fake.embedded_texts()[sent:] if t not in QUESTIONS]
    assert 0 < len(cold) <= 6 and first
    # Asked again, it embeds the next windows of its candidates, again within the budget.
    assert len(cold) < len(later) <= 12 and again


@pytest.mark.parametrize(
    ("coverage", "similarity", "expected"),
    [
        (0.7, None, True), (0.5, None, False),  # no dense: the bar alone
        (0.7, 0.70, False),  # covers the words, far in meaning: refused
        (0.5, 0.95, True),  # under the bar, very close in meaning: accepted
        (0.3, 0.95, False),  # ... but not below the floor
        (0.7, 0.85, True), (0.5, 0.85, False),
    ],
)
def test_dense_similarity_moves_the_refusal_only_at_its_ends(
    coverage: float, similarity: float | None, expected: bool
) -> None:
    params = DEFAULT_PARAMS.__class__(
        dense_refuse_below=0.75, dense_accept_above=0.9, dense_accept_coverage=0.4)
    assert covers(coverage, similarity, 0.65, params) is expected


def run_search(docs: Path, cache: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "docai", "search", "pip install docai", "--json",
               "--docs", str(docs), "--cache-dir", str(cache), "--ollama-url", url,
               "--dense", "on", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])


def test_a_question_on_a_fresh_folder_embeds_a_bounded_few_windows_kept_for_the_pass(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    """Until the collection is embedded, `docai search` embeds the question and one window
    of each of its best `dense_fresh_candidates` candidates, no more, and says answers may
    improve; `docai index --embed` then embeds every other window once (the question's are
    kept), after which a question embeds only itself."""
    cache = tmp_path / "cache"
    first = run_search(docs, cache, fake.url, "--embed-model", MODEL, "-v")
    assert first.returncode == 0, first.stderr
    sent = fake.embedded_texts()
    assert sent[0] == "pip install docai"
    windows_of_question = sent[1:]
    assert 1 <= len(windows_of_question) <= DEFAULT_PARAMS.dense_fresh_candidates
    assert all("pip install docai" in text for text in windows_of_question)  # the best ones
    assert "podem melhorar" in first.stderr
    assert json.loads(first.stdout)["results"]

    embedded = subprocess.run(
        [sys.executable, "-m", "docai", "index", "--embed", "--docs", str(docs), "--cache-dir",
         str(cache), "--ollama-url", fake.url, "--embed-model", MODEL, "--dense", "on"],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert embedded.returncode == 0, embedded.stderr
    every = set(all_windows(index_of(docs, cache)[0]))
    sent = fake.embedded_texts()
    assert sorted(sent[1:]) == sorted(every)  # each window once, the question's not again

    dense = run_search(docs, cache, fake.url, "--embed-model", MODEL, "-v")
    assert dense.returncode == 0, dense.stderr
    assert fake.embedded_texts()[len(sent):] == ["pip install docai"]  # the question only
    assert "trechos têm embeddings" in dense.stderr
    assert json.loads(dense.stdout)["results"]


def test_a_server_that_dies_mid_pass_keeps_what_it_gave_and_warns_once(
    docs: Path, tmp_path: Path
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    warnings: list[str] = []
    with EmbeddingOllama(embed_fail_after=2) as fake, dense_for(
        index, cache_dir, fake.url, warnings
    ) as dense:
        report = dense.embed_pending(step=16)
        answered = [text for body in fake.bodies("/api/embed")[:2] for text in body["input"]]
    assert not report.complete and not dense.active
    assert len(warnings) == 1 and "llama runner" in warnings[0]
    stored = vector_store.load(vector_store.store_path(cache_dir, "ollama/" + MODEL),
                               "ollama/" + MODEL)
    assert stored is not None
    assert set(stored.keys.tolist()) == {vector_store.checksum(text) for text in answered}


def test_rebuild_drops_the_stored_vectors_for_good(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        dense.embed_pending()
    embedder = OllamaEmbedder(fake.url, MODEL)
    dense = open_dense_ranking(index.chunks, embedder, cache_dir, rebuild=True)
    search(index, QUESTIONS[0], 3, 0.0, dense)
    dense.save()
    embedder.close()
    stored = vector_store.load(vector_store.store_path(cache_dir, "ollama/" + MODEL),
                               "ollama/" + MODEL)
    assert stored is not None and 0 < len(stored.keys) < len(all_windows(index))


def test_a_long_pass_rewrites_the_store_on_a_timer_not_at_every_step(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save rewrites the whole store (hundreds of MB for a large collection): a pass of
    many steps must not write it once per step."""
    index, cache_dir = index_of(docs, tmp_path / "cache")
    path = vector_store.store_path(cache_dir, "ollama/" + MODEL)
    writes = count_store_writes(monkeypatch)
    with dense_for(index, cache_dir, fake.url) as dense:
        report = dense.embed_pending(step=8, prune=False)
    assert report.complete and report.embedded == len(all_windows(index)) > 4 * 8
    assert len(writes) == 1  # at the end (the pass took less than SAVE_INTERVAL_S)
    stored = vector_store.load(path, "ollama/" + MODEL)
    assert stored is not None and len(stored.keys) == len(all_windows(index))

    # With the timer always due, it saves after every step instead.
    monkeypatch.setattr("docai.retrieval.dense_pass.SAVE_INTERVAL_S", 0.0)
    writes.clear()
    with dense_for(index, tmp_path / "other", fake.url) as dense:
        report = dense.embed_pending(step=8, prune=False)
    assert len(writes) >= report.embedded // 8 > 4


def test_a_finished_pass_is_not_walked_again_in_the_next_session(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every start of the REPL runs the pass; on a collection already embedded it must not
    cut and hash every window again (seconds of CPU at 100k chunks), nor rewrite the store."""
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        assert dense.embed_pending().complete
    path = vector_store.store_path(cache_dir, "ollama/" + MODEL)
    written = vector_store.identity(path)

    def no_windows(*args: object, **kwargs: object) -> tuple[str, ...]:
        raise AssertionError("the windows of a complete collection were cut again")

    monkeypatch.setattr("docai.retrieval.dense_windows.windows", no_windows)
    with dense_for(index, cache_dir, fake.url) as dense:
        report = dense.embed_pending()
    assert report.complete and report.embedded == 0
    assert vector_store.identity(path) == written


def test_a_collection_that_changed_is_walked_again_and_its_old_mark_does_not_hold(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama
) -> None:
    """The mark names the collection's text: an edited file is embedded in the next pass;
    once that pass dropped the old windows, going back to the old text embeds them again."""
    page = docs / "0-instalação.md"
    original = page.read_text(encoding="utf-8")
    index, cache_dir = index_of(docs, tmp_path / "cache")
    with dense_for(index, cache_dir, fake.url) as dense:
        dense.embed_pending()
    old_windows = {w for chunk in index.chunks if chunk.source == page.name
                   for w in windows(chunk.text, DEFAULT_PARAMS.window_chars)}

    page.write_text("# Outro\n\nTexto novo e curto.", encoding="utf-8")
    edited, _ = index_of(docs, tmp_path / "cache")
    with dense_for(edited, cache_dir, fake.url) as dense:
        assert dense.embed_pending().embedded == 1  # the new window; the old ones pruned

    page.write_text(original, encoding="utf-8")
    back, _ = index_of(docs, tmp_path / "cache")
    with dense_for(back, cache_dir, fake.url) as dense:
        report = dense.embed_pending()
    assert report.complete and report.embedded == len(old_windows) > 1


def test_a_question_never_waits_for_the_store_to_be_written(
    docs: Path, tmp_path: Path, fake: EmbeddingOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewriting the store takes a second or two at 100k chunks: a cold question embeds its
    candidates in memory and the save comes after the answer, ranking the same either way."""
    index, cache_dir = index_of(docs, tmp_path / "cache")
    writes = count_store_writes(monkeypatch)
    with dense_for(index, cache_dir, fake.url) as dense:
        before = results(index, dense)
        assert writes == [] and len(fake.embedded_texts()) > len(QUESTIONS)
        dense.save()
        assert writes == [1]
        assert results(index, dense) == before  # the vectors read back as they were ranked
    with dense_for(index, cache_dir, fake.url) as dense:
        assert results(index, dense) == before  # and in the next session


def test_vectors_asked_only_for_windows_the_store_lacks_read_as_zeros(tmp_path: Path) -> None:
    """A question whose candidates have only windows embedded in this process (none in the
    file) reads no row of the file: it used to fail with an IndexError on the second
    question of a folder."""
    path = tmp_path / "vectors.npz"
    stored, new, absent = (vector_store.checksum(text) for text in ("stored", "new", "absent"))
    first = WindowVectors(path, "model")
    first.add([stored], np.array([[1.0, 0.0]], dtype=np.float32))
    first.save()
    again = WindowVectors(path, "model")
    again.add([new], np.array([[0.0, 1.0]], dtype=np.float32))
    assert again.get([new, absent]).tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert again.missing([new, absent, stored]) == [absent]


def test_the_count_kept_across_questions_and_the_pass_is_the_walked_one(
    tmp_path: Path, fake: EmbeddingOllama
) -> None:
    """The collection is walked once for the count; a question's windows and the pass's
    steps keep it, equal to a walk at every point."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, topic in enumerate(TOPICS):  # one window a chunk: a question completes some
        (docs / f"{number}-{topic}.md").write_text(
            f"# {topic.title()}\n\nComo ajustar {topic}: pip install docai.\n", encoding="utf-8")
    index, cache_dir = index_of(docs, tmp_path / "cache")
    embedder = OllamaEmbedder(fake.url, MODEL, retries=0)
    dense = open_dense_ranking(index.chunks, embedder, cache_dir, bounded_until_complete=True)

    def walked() -> int:
        return sum(dense.windows.complete_row(row) for row in range(len(index)))

    assert dense.embedded_chunks() == 0
    search(index, "como ajustar o cache?", 3, 0.0, dense)
    assert dense.last_question is not None and dense.last_question.partial
    assert 0 < dense.embedded_chunks() == walked() <= DEFAULT_PARAMS.dense_fresh_candidates
    dense.embed_pending(stop=lambda: walked() >= len(index) // 2 + 2, step=2)
    assert dense.embedded_chunks() == walked() < len(index)
    dense.embed_pending()
    assert dense.embedded_chunks() == walked() == len(index)
    embedder.close()
