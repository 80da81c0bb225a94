"""The limited child a hostile parse runs in (`loading.isolated`): whatever ends it (an
abort, running out of memory, running out of time, a parser's bug) is a reason, never the
caller's end; and its reply is checked as untrusted data."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from docai.loading.deadline import TimeLimitExceeded
from docai.loading.isolated import Failed, parse_isolated
from docai.loading.parsed import Parsed, UnusableFile
from docai.loading.parsed_json import parsed_to_json, reply_from_json
from docai.records import Location, Section

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork and /proc")
SAMPLE = Parsed("Guia \udcff", (
    Section(("Uso", "Com pip"), "texto \ud800 cru", Location("page", 3),
            ((5, Location("page", 4)),)),
    Section((), "sem título"),
), ("uma nota",))


def test_a_parse_comes_back_whole_lone_surrogates_included() -> None:
    assert parse_isolated(lambda: SAMPLE, 60) == SAMPLE


def test_an_abort_is_a_crash_and_the_caller_goes_on() -> None:
    assert parse_isolated(os.abort, 60) == Failed("crash", "SIGABRT")


def test_memory_past_the_limit_ends_the_child_not_the_caller() -> None:
    def hog() -> Parsed:
        hoard = [bytearray(64 << 20) for _ in range(64)]  # 4 GiB, far past the limit
        return Parsed(str(len(hoard)), ())

    assert parse_isolated(hog, 60, memory_bytes=256 << 20) == Failed("memory")


def test_a_parse_past_its_time_is_killed(tmp_path: Path) -> None:
    def forever() -> Parsed:
        while True:
            pass

    with pytest.raises(TimeLimitExceeded):
        parse_isolated(forever, 0.5)


def test_a_parser_reason_and_a_parser_bug_become_reasons() -> None:
    def unusable() -> Parsed:
        raise UnusableFile("PDF protegido por senha")

    def buggy() -> Parsed:
        raise KeyError("oops")

    assert parse_isolated(unusable, 60) == Failed("unusable", "PDF protegido por senha")
    assert parse_isolated(buggy, 60) == Failed("error", "KeyError")


@pytest.mark.parametrize("reply", [
    b"[]", b'{"title": 1, "sections": [], "notes": []}',
    b'{"title": "", "sections": [[["a"], "b", ["volume", 1], []]], "notes": []}',
    b'{"title": "", "sections": [[["a"], "b", null, [[true, ["page", 1]]]]], "notes": []}',
    b'{"title": "", "sections": [[["a"], "b"]], "notes": []}',
])
def test_a_reply_of_the_wrong_shape_is_refused(reply: bytes) -> None:
    with pytest.raises(ValueError):
        reply_from_json(reply)


def test_the_reply_format_round_trips() -> None:
    assert reply_from_json(parsed_to_json(SAMPLE).encode("ascii")) == SAMPLE


def test_a_child_that_cannot_be_started_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of processes (RLIMIT_NPROC) or memory: the file is skipped, the build goes on."""
    import errno

    def refuse() -> int:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    assert parse_isolated(lambda: SAMPLE, 60) == Failed(
        "crash", "Resource temporarily unavailable")
