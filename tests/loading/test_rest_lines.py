"""A long reST table (pytest's plugin list: 1,500 rows in one simple table) is cited row
by row, and a list item's later paragraphs each by their own line: every passage cut from
them cites the line its text starts on."""

from __future__ import annotations

from pathlib import Path

import pytest

from docai.chunking import chunk_document
from docai.loading import load_file
from tests.loading.results import document
from tests.loading.test_citation_lines import CHUNKING, cited_lines_hold_their_text, paragraphs

ROWS = [(f"plugin{n}", f"Runs suite number{n} against service{n} with its own settings")
        for n in range(40)]


def simple_table() -> list[str]:
    rule = "=" * 10 + "  " + "=" * 64
    return [rule, f"{'name':10}  summary", rule,
            *(f"{name:10}  {summary}" for name, summary in ROWS), rule]


def list_table() -> list[str]:
    return [".. list-table::", "", *(line for name, summary in ROWS
                                     for line in (f"   * - {name}", f"     - {summary}"))]


@pytest.mark.parametrize("table", [simple_table, list_table])
def test_each_passage_of_a_long_table_cites_its_first_row(tmp_path: Path, table) -> None:
    lines = ["Plugins", "=======", "", "Every plugin we know of.", "", *table(), ""]
    (tmp_path / "plugins.rst").write_text("\n".join(lines), encoding="utf-8")
    chunks = chunk_document(document(load_file(tmp_path, tmp_path / "plugins.rst")), CHUNKING)

    rows = [chunk for chunk in chunks if "plugin" in chunk.text.split("\n", 1)[1][:8]]
    assert len(rows) >= 5
    for chunk in rows:
        first = chunk.text.split("\n", 1)[1].split()[0]
        cited = chunk.location.number - 1
        assert any(first in line.split() for line in lines[cited:cited + 2]), (cited, chunk.text)


def test_a_list_items_later_paragraphs_cite_their_own_lines(tmp_path: Path) -> None:
    body = paragraphs(12)
    items = [f"- {body[0]}\n\n  {body[1]}\n\n  {body[2]}\n\n  ::\n\n      step = 1\n\n"
             f"  {body[3]}\n\n  {body[4]}\n\n  - {body[5]}\n\n    {body[6]}\n\n    {body[7]}\n",
             f"- {body[8]}\n\n  {body[9]}\n\n  {body[10]}\n\n  {body[11]}\n"]
    text = "Modes\n=====\n\n" + "\n".join(items)
    assert cited_lines_hold_their_text(tmp_path, "modes.rst", text) >= 6
