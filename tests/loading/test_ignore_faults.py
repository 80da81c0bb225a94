"""Hostile ignore files through the real `docai index` process: a line git would skip
(an inverted range, a lone backslash or `!`, a trailing backslash) is skipped with one
notice naming the file and the line, and a pattern that makes a backtracking matcher take
exponential time is matched in linear time."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.sample_docs import write_docs

NO_SERVER = "http://127.0.0.1:9"
PAGE = "# {title}\n\n## Uso\n\nO termo {term} aparece só nesta página.\n"
# Generous: a wedged walk is caught by this, never a slow machine.
RUN_TIMEOUT_S = 240


def run(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, *map(str, args)], capture_output=True, text=True,
                          env=docai_env(tmp_path, NO_SERVER), timeout=RUN_TIMEOUT_S,
                          stdin=subprocess.DEVNULL)


def found(tmp_path: Path, docs: Path, term: str) -> list[str]:
    done = run(tmp_path, "search", "--json", "--dense", "off", "--docs", docs, term)
    assert done.returncode == 0, done.stderr
    return [hit["source"] for hit in json.loads(done.stdout)["results"]]


@pytest.mark.parametrize("rules_file", [".gitignore", ".docaiignore"])
def test_invalid_patterns_are_skipped_with_a_notice_naming_the_file_and_line(
    tmp_path: Path, rules_file: str
) -> None:
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        "rascunho.md": PAGE.format(title="Rascunho", term="betazeta"),
        rules_file: "[z-a]\n\\\n!\na\\\nrascunho.md\n",
    })
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "inesperado" not in said
    for line in (1, 2, 3, 4):
        assert f"{rules_file}: linha {line}:" in said, said
    assert f"{rules_file}: linha 5" not in said  # the valid rule still applies...
    assert found(tmp_path, docs, "betazeta") == []  # ...and leaves the draft out
    assert found(tmp_path, docs, "alfazeta") == ["guia.md"]


def test_a_pattern_that_backtracks_does_not_hang_the_walk(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        "a" * 60 + ".md": PAGE.format(title="As", term="gamazeta"),
        ".gitignore": "a*" * 12 + "b\n",
    })
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert found(tmp_path, docs, "gamazeta") == ["a" * 60 + ".md"]  # the rule matches no file


def test_rules_past_the_limit_are_left_out_with_a_notice(tmp_path: Path) -> None:
    """A generated rules file of a megabyte neither stalls every walk nor counts whole:
    the rules past the limit are named in a notice, and do not apply."""
    from docai.loading.ignore import MAX_RULES

    rules = [f"gerado/pasta{number:05d}/arq*{number}.md" for number in range(MAX_RULES)]
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        "rascunho.md": PAGE.format(title="Rascunho", term="betazeta"),
        ".docaiignore": "\n".join([*rules, "rascunho.md"]) + "\n",
    })
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert f".docaiignore: só as primeiras {MAX_RULES} regras valem; da linha " \
        f"{MAX_RULES + 1} em diante" in done.stdout + done.stderr
    assert found(tmp_path, docs, "betazeta") == ["rascunho.md"]


def test_a_pipe_or_a_device_as_ignore_file_is_not_waited_on(tmp_path: Path) -> None:
    """A FIFO named `.gitignore` would block a plain read until a writer came, and a link
    to /dev/zero never ends: neither is a rules file, and neither is read."""
    import os

    docs = write_docs(tmp_path / "docs", {"guia.md": PAGE.format(title="Guia", term="alfazeta")})
    os.mkfifo(docs / ".gitignore")
    (docs / ".docaiignore").symlink_to("/dev/zero")
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert found(tmp_path, docs, "alfazeta") == ["guia.md"]


def test_a_file_name_that_is_not_utf8_is_matched_by_the_rules(tmp_path: Path) -> None:
    """RE2 takes only valid UTF-8; a Latin-1 name must neither end the walk nor escape a
    rule that matches it (`*.rascunho.md`, `caf?.md`)."""
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        ".docaiignore": "*.rascunho.md\n",
    })
    with open(bytes(docs) + b"/caf\xe9.md", "wb") as page:
        page.write(PAGE.format(title="Cafe", term="betazeta").encode())
    with open(bytes(docs) + b"/ide\xe9.rascunho.md", "wb") as page:
        page.write(PAGE.format(title="Ideia", term="gamazeta").encode())
    done = run(tmp_path, "index", "--docs", docs)
    assert done.returncode == 0, done.stderr
    assert found(tmp_path, docs, "betazeta") == ["caf\ufffd.md"]
    assert found(tmp_path, docs, "gamazeta") == []
