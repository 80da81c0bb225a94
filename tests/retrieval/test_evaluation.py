"""Retrieval evaluation: metrics on hand-made rankings, QA file errors, and `docai eval` itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docai.records import Chunk, Hit
from docai.retrieval.evaluation import (
    Gold,
    Outcome,
    QAFileError,
    Question,
    check_gold,
    evaluate,
    first_hit_rank,
    fold,
    parse_questions,
    score,
    summarise,
    summary_json,
)
from docai.retrieval.search_index import open_index
from docai.retrieval.verdict import Fallback, NotCovered, Passages, Verdict
from docai.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCAI = [sys.executable, "-m", "docai"]


def _chunk(source: str, text: str, ordinal: int = 0) -> Chunk:
    return Chunk(source=source, heading_path=("H",), ordinal=ordinal, text=text, tokens=1)


def _question(qid: str = "q", *gold: tuple[str, str], type: str | None = None,
              lang: str | None = None) -> Question:
    return Question(qid, "pergunta?", tuple(Gold(s, a) for s, a in gold), type, lang)


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DOCAI, *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def guide_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index of resources/docs shared by the tests below (built once, then reused)."""
    cache = tmp_path_factory.mktemp("cache")
    open_index(Settings(docs_dir=ROOT / "resources/docs", cache_dir=cache))
    return cache


# --- matching ---------------------------------------------------------------------------

def test_answers_match_across_case_and_line_breaks() -> None:
    question = _question("q", ("a.md", "Run  OLLAMA serve"))
    assert fold("Run\n  Ollama\tSERVE ") == "run ollama serve"
    assert first_hit_rank(question, [_chunk("a.md", "To start, run\nollama   serve now")]) == 1


def test_the_answer_in_another_file_is_not_a_hit() -> None:
    question = _question("q", ("a.md", "port 11434"))
    ranked = [_chunk("b.md", "port 11434"), _chunk("a.md", "nothing"), _chunk("a.md", "port 11434")]
    assert first_hit_rank(question, ranked) == 3


def test_each_gold_answer_counts_only_in_its_own_source() -> None:
    question = _question("q", ("a.md", "alpha"), ("b.md", "beta"))
    assert first_hit_rank(question, [_chunk("a.md", "beta"), _chunk("b.md", "alpha")]) is None
    assert first_hit_rank(question, [_chunk("a.md", "x"), _chunk("b.md", "beta")]) == 2


def test_hits_below_rank_ten_do_not_count() -> None:
    question = _question("q", ("a.md", "gold"))
    ranked = [_chunk("a.md", f"filler {i}", i) for i in range(10)] + [_chunk("a.md", "gold")]
    assert first_hit_rank(question, ranked) is None


# --- metrics ----------------------------------------------------------------------------

def test_hit_at_k_and_mrr_from_first_hit_ranks() -> None:
    scores = score([1, 2, 4, None])
    assert scores.questions == 4
    assert scores.hit_at(1) == 0.25
    assert scores.hit_at(3) == 0.5
    assert scores.hit_at(10) == 0.75
    assert scores.mrr == pytest.approx((1 + 1 / 2 + 1 / 4) / 4)


def test_no_questions_score_zero_rather_than_divide_by_zero() -> None:
    assert score([]).mrr == 0.0


def test_summary_groups_by_type_and_language_and_counts_refusals() -> None:
    outcomes = [
        Outcome(_question("a", ("x", "y"), type="keyword", lang="en"), 1, refused=False),
        Outcome(_question("b", ("x", "y"), type="paraphrase", lang="pt"), None, refused=True),
        Outcome(_question("c", ("x", "y"), type="paraphrase", lang="pt"), 2, refused=False),
        Outcome(_question("d", type="uncovered", lang="pt"), None, refused=True),
        Outcome(_question("e", type="uncovered", lang="en"), None, refused=False),
    ]
    summary = summarise(outcomes)
    assert summary.overall.questions == 3
    assert dict(summary.by_type)["paraphrase"].mrr == pytest.approx(0.25)
    assert dict(summary.by_type)["keyword"].hit_at(1) == 1.0
    assert "uncovered" not in dict(summary.by_type)  # nothing to hit: only refusals count
    assert dict(summary.by_lang)["pt"].questions == 2
    assert summary.refusals.uncovered == 2
    assert summary.refusals.uncovered_refused == 1
    assert summary.refusals.covered_refused == 1
    assert summary.misses == ("b",)
    figures = summary_json(summary)
    assert figures["by_lang"]["en"]["hit@1"] == 1.0
    assert figures["refusals"] == {"uncovered": 2, "uncovered_refused": 1, "covered": 3,
                                   "covered_refused": 1, "uncovered_fallback": 0,
                                   "covered_fallback": 0}


def test_evaluate_scores_the_ranking_and_counts_refusals_and_fallbacks() -> None:
    asked: list[int] = []

    def rank(question: str, k: int) -> list[Hit]:
        asked.append(k)
        return [Hit(_chunk("a.md", "the answer"), 1.0)]

    def decide(question: str) -> Verdict:
        if "nada" in question:
            return NotCovered()
        return Fallback("a.md") if "arquivo" in question else Passages(())

    covered = Question("c", "onde?", (Gold("a.md", "answer"),))
    from_file = Question("f", "arquivo?", (Gold("a.md", "answer"),))
    uncovered = Question("u", "nada?", ())
    outcomes = evaluate([covered, from_file, uncovered], rank, decide)
    assert [(o.rank, o.refused, o.fallback) for o in outcomes] == [
        (1, False, False), (1, False, True), (None, True, False)]
    assert asked == [10, 10]  # a refused question is not ranked: the user sees nothing
    refusals = summarise(outcomes).refusals
    assert (refusals.covered_fallback, refusals.uncovered_refused) == (1, 1)


# --- QA files ---------------------------------------------------------------------------

def test_a_valid_file_parses_with_optional_fields_and_blank_lines() -> None:
    lines = [
        '{"id": "1", "question": "Q?", "gold": [{"source": "a.md", "answer": "x"}], '
        '"type": "factoid", "lang": "pt"}',
        "",
        '{"id": "2", "question": "Q2?", "gold": []}',
    ]
    first, second = parse_questions(lines, "qa.jsonl")
    assert first.gold == (Gold("a.md", "x"),) and first.lang == "pt" and first.covered
    assert second.type is None and not second.covered


@pytest.mark.parametrize(
    ("bad_line", "expected"),
    [
        ('{"id": "2", "question": "Q?", "gold": [}', "JSON inválido"),
        ('{"question": "Q?", "gold": []}', '"id"'),
        ('{"id": "2", "question": "", "gold": []}', '"question"'),
        ('{"id": "2", "question": "Q?"}', '"gold"'),
        ('{"id": "2", "question": "Q?", "gold": [{"source": "a.md"}]}', '"answer"'),
        ('["not", "an", "object"]', "objeto JSON"),
        ('{"id": "1", "question": "Q?", "gold": []}', "id"),
    ],
)
def test_a_bad_line_is_reported_with_file_and_line_number(bad_line: str, expected: str) -> None:
    good = '{"id": "1", "question": "Q?", "gold": []}'
    with pytest.raises(QAFileError) as error:
        parse_questions([good, bad_line], "perguntas.jsonl")
    assert "perguntas.jsonl, linha 2" in str(error.value)
    assert expected in str(error.value)


def test_an_empty_file_is_an_error() -> None:
    with pytest.raises(QAFileError, match="nenhuma pergunta"):
        parse_questions(["", "  "], "vazio.jsonl")


def test_check_gold_reports_answers_that_no_chunk_contains() -> None:
    chunks = [_chunk("a.md", "Install with pip install docai")]
    questions = [_question("ok", ("a.md", "PIP install")), _question("typo", ("a.md", "pipx")),
                 _question("lost", ("gone.md", "x"))]
    assert check_gold(questions, chunks) == [
        "typo: 'pipx' is in no chunk of a.md",
        "lost: unknown source 'gone.md'",
    ]


# --- the real QA set and CLI ------------------------------------------------------------

def test_every_gold_answer_of_the_docai_set_is_in_the_user_guide(guide_cache: Path) -> None:
    """Guards the set against edits of resources/docs that silently break a question."""
    questions = parse_questions(
        (ROOT / "tests/eval/docai.jsonl").read_text(encoding="utf-8").splitlines(), "docai.jsonl"
    )
    settings = Settings(docs_dir=ROOT / "resources/docs", cache_dir=guide_cache)
    index, _report = open_index(settings)
    assert check_gold(questions, index.chunks) == []


def test_docai_eval_json_on_the_user_guide(guide_cache: Path) -> None:
    done = _run("eval", "tests/eval/docai.jsonl", "--json", "--cache-dir", guide_cache)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["retrieval"] == "hybrid"
    assert figures["overall"]["questions"] == figures["refusals"]["covered"] >= 20
    assert set(figures["by_lang"]) == {"en", "pt"}
    assert set(figures["by_type"]) >= {"factoid", "keyword", "paraphrase"}
    # A floor well below today's figures: a retrieval regression shows up here first.
    assert figures["overall"]["hit@10"] >= 0.6
    assert figures["overall"]["mrr@10"] >= 0.4


def test_docai_eval_prints_a_portuguese_table(guide_cache: Path) -> None:
    done = _run("eval", "tests/eval/docai.jsonl", "--cache-dir", guide_cache)
    assert done.returncode == 0, done.stderr
    assert "hit@3" in done.stdout and "MRR@10" in done.stdout
    assert "idioma pt" in done.stdout and "tipo paraphrase" in done.stdout
    assert "recusadas por engano" in done.stdout


def test_docai_eval_rejects_a_malformed_file_without_a_traceback(tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text('{"id": "1", "question": "Q?", "gold": []}\n{"id": "2", "gold": []}\n',
                  encoding="utf-8")
    done = _run("eval", qa, "--cache-dir", tmp_path / "cache")
    assert done.returncode == 2
    assert "qa.jsonl, linha 2" in done.stderr and '"question"' in done.stderr
    assert "Traceback" not in done.stderr


def test_docai_eval_names_a_missing_file(tmp_path: Path) -> None:
    done = _run("eval", tmp_path / "nope.jsonl")
    assert done.returncode == 2
    assert "nope.jsonl" in done.stderr and "Traceback" not in done.stderr
