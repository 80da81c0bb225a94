"""What a question costs on a network: the real `docai` process reads a real PostgreSQL
through a TCP proxy on 127.0.0.1 that counts round trips (`bench/store_proxy.py`)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.store_proxy import DelayProxy, proxied_url, socket_of
from tests.store.test_store_cli import QA, index, run

# Statements a words-only question may wait for: the generation with the question terms'
# packs, the chunks they rank first, and the terms of those chunks this client has not
# read yet (none once it has read them all).
MAX_ROUND_TRIPS = 3.5  # on average: a multi-word name or a whole file costs more


def round_trips(home: Path, url: str, questions: list[str]) -> int:
    with DelayProxy(socket_of(url)) as proxy:
        done = run(home, "search", "--json", "--dense", "off", "--store",
                   proxied_url(url, proxy.port), "--collection", "docs",
                   stdin="\n".join(questions), cwd=home / "empty")
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == len(questions)
        return proxy.round_trips


def test_a_words_only_question_costs_about_three_round_trips(
    home: Path, store_url: str
) -> None:
    index(home, store_url)
    questions = [json.loads(line)["question"] for line in QA.read_text().splitlines()]
    few, many = round_trips(home, store_url, questions[:1]), round_trips(home, store_url,
                                                                        questions[:11])
    per_question = (many - few) / 10
    assert per_question <= MAX_ROUND_TRIPS, per_question
