"""The user guide in resources/docs quotes docai's defaults: it must quote the real ones.

The guide is what users read (and what docai answers from about itself), so a default
changed in code but not in the guide would make docai give wrong advice about itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from docai.retrieval.params import DEFAULT_PARAMS
from docai.retrieval.search_index import open_index
from docai.settings import ChunkSettings, Settings

GUIDE = Path(__file__).resolve().parents[2] / "resources" / "docs"


def read(name: str) -> str:
    return " ".join((GUIDE / name).read_text(encoding="utf-8").split())


def test_the_coverage_bar_and_bm25_parameters_are_the_real_defaults():
    retrieval = read("retrieval.md")
    bar, file_bar = DEFAULT_PARAMS.min_coverage, DEFAULT_PARAMS.min_file_coverage
    assert f"**{bar:g}** (the default of `--min-coverage`)" in retrieval
    assert f"at least {file_bar:.0%}".replace("%", " %") in retrieval
    assert f"k1 = {DEFAULT_PARAMS.bm25_k1:g} and b = {DEFAULT_PARAMS.bm25_b:g}" in retrieval
    assert f"calibrated (`{bar:g}`)" in read("options.md")


def test_the_dense_re_ranking_is_described_with_its_real_numbers():
    retrieval = read("retrieval.md")
    assert f"the top {DEFAULT_PARAMS.dense_candidates} candidates are re-ranked" in retrieval
    assert f"best window of about {DEFAULT_PARAMS.window_chars} characters" in retrieval


def test_chunk_sizes_are_the_real_defaults():
    chunking = ChunkSettings()
    retrieval = read("retrieval.md")
    assert f"chunks of at most {chunking.max_tokens} tokens" in retrieval
    assert f"overlap of up to {chunking.overlap_tokens} tokens" in retrieval


def test_the_repl_page_shows_the_guide_as_docai_really_indexes_it(tmp_path: Path):
    _, report = open_index(Settings(docs_dir=GUIDE, cache_dir=tmp_path))
    expected = f"docai pronto: {report.files} arquivo(s), {report.chunks} trecho(s)"
    assert expected in read("repl.md")


# Questions a user asks about docai itself, each answered by the guide page that covers it.
ABOUT_DOCAI = [
    ("How do I turn off the log?", "conversations.md"),
    ("Como retomo uma conversa anterior?", "conversations.md"),
    ("How do I copy an answer inside tmux?", "conversations.md"),
    ("Como gravo a conversa num arquivo?", "conversations.md"),
    ("How do I use docai from Claude Code?", "agents.md"),
    ("Onde fica o config.toml?", "configuration.md"),
    ("How do I write a question with several lines?", "repl-input.md"),
    ("What does Ctrl-X Ctrl-E do?", "repl-input.md"),
    ("Como mudo a temperatura durante a sessão?", "repl-input.md"),
]


def test_the_guide_answers_questions_about_docai_itself(docai, tmp_path: Path) -> None:
    """`make run` opens the guide: asked about docai's own features, it must find them."""
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    questions = "\n".join(question for question, _ in ABOUT_DOCAI) + "\n"
    code, out, err = docai("search", "--json", "--dense", "off", "--docs", GUIDE,
                           stdin=questions)
    assert code == 0, err
    found = [json.loads(line) for line in out.splitlines()]
    for (question, page), result in zip(ABOUT_DOCAI, found, strict=True):
        sources = [hit["source"] for hit in result["results"]]
        assert page in sources, (question, sources)
