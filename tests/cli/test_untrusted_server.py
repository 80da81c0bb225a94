"""A model server that misbehaves, as a user meets it: a line that never ends, an error page
of hundreds of megabytes, a model that loops, a redirect, junk figures. docai stays within
a small memory, stops, and says what happened. Real HTTP servers on 127.0.0.1; the memory
cases run the real `docai` process, whose own peak memory the kernel reports (wait4)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.docai_cli import DOCAI, InProcessDocai, Result, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import QUESTION, REPLY, write_docs

MiB = 1 << 20
SENT_MIB = 160  # what the hostile server sends; docai must not hold it
# Holding the hostile body as bytes and text would add 300 MB and more to what the same
# process needs for an ordinary answer, measured first in each test.
EXTRA_LIMIT_MB = 64


def endless_line() -> Iterator[bytes]:
    """One NDJSON "line" that never ends: SENT_MIB of JSON-looking text, no newline."""
    yield b'{"model": "deepseek-r1", "message": {"content": "'
    block = b"a" * MiB
    for _ in range(SENT_MIB):
        yield block


def huge_error_page() -> Iterator[bytes]:
    yield b"<html><body>Internal Server Error"
    block = b"<p>trace</p>" * (MiB // 12)
    for _ in range(SENT_MIB):
        yield block


def run_process(tmp_path: Path, url: str, *args: str) -> tuple[Result, int]:
    """`docai ask QUESTION ARGS` as a process: its result and its own peak memory in MB."""
    docs = tmp_path / "docs"
    if not docs.exists():
        write_docs(docs)
    env = docai_env(tmp_path, url) | {"DOCAI_DENSE": "off"}
    process = subprocess.Popen(
        [DOCAI, "ask", QUESTION, "--docs", str(docs), "--no-log", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
    )
    # Output is small (the point of these tests), so reading after the exit cannot block.
    _, status, usage = os.wait4(process.pid, 0)
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read().decode(), process.stderr.read().decode()
    process.returncode = os.waitstatus_to_exitcode(status)
    return Result(process.returncode, out, err), usage.ru_maxrss // 1024


def ordinary_peak(tmp_path: Path) -> int:
    """The peak of the same command answered by a well-behaved server (the index built)."""
    with FakeOllama(reply=REPLY) as server:
        run_process(tmp_path, server.url)  # builds the index: the measured runs only read it
        done, peak_mb = run_process(tmp_path, server.url)
    assert done.returncode == 0, done.stderr
    return peak_mb


@pytest.mark.timeout(120)
def test_a_line_that_never_ends_is_cut_before_it_fills_memory(tmp_path: Path) -> None:
    ordinary = ordinary_peak(tmp_path)
    with FakeOllama(raw_body=endless_line) as server:
        done, peak_mb = run_process(tmp_path, server.url)
    assert done.returncode == 1, done.stderr
    assert "mais de 1 MB" in done.stderr
    assert "Traceback" not in done.stderr
    assert peak_mb < ordinary + EXTRA_LIMIT_MB, f"{peak_mb} MB against {ordinary} MB"


@pytest.mark.timeout(120)
def test_a_huge_error_page_is_reported_from_its_start_only(tmp_path: Path) -> None:
    ordinary = ordinary_peak(tmp_path)
    with FakeOllama(raw_body=huge_error_page, raw_status=500) as server:
        done, peak_mb = run_process(tmp_path, server.url)
    assert done.returncode == 1, done.stderr
    assert "HTTP 500" in done.stderr
    assert peak_mb < ordinary + EXTRA_LIMIT_MB, f"{peak_mb} MB against {ordinary} MB"


@pytest.fixture
def ask(docai: InProcessDocai, tmp_path: Path):
    def run(url: str, *args: str) -> Result:
        docs = write_docs(tmp_path / "docs")
        docai.use_env(tmp_path, url)
        return docai("ask", QUESTION, "--docs", docs, "--no-log", *args)

    return run


def test_an_answer_is_bounded_by_default_and_the_limit_is_sent(ask) -> None:
    with FakeOllama(reply=REPLY) as server:
        done = ask(server.url)
        options = server.chat_requests[-1]["options"]
    assert done.returncode == 0, done.stderr
    assert options["num_predict"] == 4096
    assert "cortada" not in done.stderr


def test_an_answer_cut_by_the_server_at_the_limit_says_so(ask) -> None:
    with FakeOllama(reply="uma resposta que vai longe demais " * 20, think_shape="none") as server:
        done = ask(server.url, "--max-tokens", "20")
        options = server.chat_requests[-1]["options"]
    assert options["num_predict"] == 20
    assert done.returncode == 0, done.stderr
    assert "cortada no limite de 20 tokens" in done.stderr
    assert "--max-tokens" in done.stderr


@pytest.mark.timeout(60)
def test_a_model_that_loops_past_the_limit_is_stopped_by_docai(ask) -> None:
    loop = "e de novo " * 50_000  # 500,000 characters, sent whatever num_predict says
    with FakeOllama(reply=loop, think_shape="none", ignore_num_predict=True) as server:
        done = ask(server.url, "--max-tokens", "32")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 32 * 8 + 1000  # the answer, its sources, a few lines
    assert "cortada no limite de 32 tokens" in done.stderr


def test_a_model_cut_while_still_reasoning_says_what_to_change(ask) -> None:
    with FakeOllama(reply="Resposta.", thinking="hmm " * 200, think_shape="field") as server:
        done = ask(server.url, "--max-tokens", "16")
    assert done.returncode == 1
    assert "ainda raciocinando" in done.stderr
    assert "--max-tokens" in done.stderr


def test_a_bad_max_tokens_is_one_line_naming_the_option(ask) -> None:
    with FakeOllama(reply=REPLY) as server:
        done = ask(server.url, "--max-tokens", "0")
    assert done.returncode == 2
    assert "--max-tokens" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_redirect_is_named_not_taken_for_a_dropped_connection(ask) -> None:
    target = "http://127.0.0.1:9/elsewhere"
    with FakeOllama(reply=REPLY, redirect_to=target) as server:
        done = ask(server.url)
    assert done.returncode == 1
    assert "redirecionamento (HTTP 307)" in done.stderr
    assert target in done.stderr
    assert "conexão" not in done.stderr


def test_token_figures_no_server_could_have_are_shown_as_unknown(ask) -> None:
    final = {
        "model": "deepseek-r1", "message": {"role": "assistant", "content": ""}, "done": True,
        "done_reason": "stop", "prompt_eval_count": -5, "eval_count": 10**40,
        "eval_duration": 1, "total_duration": 2,
    }
    lines = [
        json.dumps({"model": "deepseek-r1", "message": {"role": "assistant", "content": REPLY},
                    "done": False}),
        json.dumps(final),
    ]
    with FakeOllama(raw_lines=lines) as server:
        done = ask(server.url, "-v")
    assert done.returncode == 0, done.stderr
    timings = next(line for line in done.stderr.splitlines() if line.startswith("tempos:"))
    assert "-5" not in timings
    assert str(10**40) not in timings
    assert "? token(s) gerados (? tokens/s); prompt de ? token(s)" in timings
