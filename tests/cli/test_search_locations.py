"""Citations say where to look: `docai search` (human and --json) over real reST, PDF and
notebook files shows the line, page or cell each passage starts at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.loading.pdf_maker import make_pdf
from tests.support.docai_cli import InProcessDocai

GUIDE = """Guia
====

Introdução ao produto.

Instalar
--------

Com pip
~~~~~~~

Rode ``pip install widgetron`` e veja :func:`~widgetron.setup`.
"""


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    (root / "guia.rst").write_text(GUIDE, encoding="utf-8")
    pages = [[f"Manual page {n} about topic {word}"] for n, word in
             enumerate(["alpha", "beta", "gamma"], 1)]
    pages[2].append("The quokka calibration needs a torque of nine newtons.")
    (root / "manual.pdf").write_bytes(make_pdf(pages, outline=[("Alpha", 0), ("Beta", 1),
                                                               ("Gamma", 2)]))
    (root / "analise.ipynb").write_text(json.dumps({"nbformat": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Análise\n\nDados de vendas."},
        {"cell_type": "markdown", "metadata": {}, "source": "## Soma"},
        {"cell_type": "code", "metadata": {}, "outputs": [],
         "source": "zebrafish_total = soma(vendas)"},
    ]}), encoding="utf-8")
    return root


@pytest.fixture
def where(docs: Path, tmp_path: Path) -> list[str]:
    return ["--docs", str(docs), "--cache-dir", str(tmp_path / "cache"), "--dense", "off"]


def best(docai: InProcessDocai, where: list[str], question: str) -> dict[str, object]:
    done = docai("search", question, "--json", *where)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)["results"][0]
    return result


def test_json_results_carry_line_page_and_cell(docai: InProcessDocai, where: list[str]) -> None:
    rest = best(docai, where, "pip install widgetron")
    assert (rest["source"], rest["heading"]) == ("guia.rst", "Guia > Instalar > Com pip")
    assert rest["location"] == {"unit": "line", "number": 12}  # its text (the heading is 9)
    assert "widgetron.setup" not in str(rest["text"]) and "setup" in str(rest["text"])
    pdf = best(docai, where, "quokka calibration torque")
    assert (pdf["source"], pdf["location"]) == ("manual.pdf", {"unit": "page", "number": 3})
    cell = best(docai, where, "zebrafish_total")
    assert (cell["source"], cell["location"]) == ("analise.ipynb", {"unit": "cell", "number": 3})


def test_human_lines_show_where_to_look(docai: InProcessDocai, where: list[str]) -> None:
    done = docai("search", "quokka calibration torque", *where)
    assert done.returncode == 0, done.stderr
    assert "manual.pdf p. 3" in done.stdout.splitlines()[0]
    done = docai("search", "pip install widgetron", *where)
    assert "guia.rst:12" in done.stdout.splitlines()[0]


def test_a_colour_terminal_source_links_to_its_file(tmp_path: Path) -> None:
    from docai.cli.output.passages import source_label
    from docai.records import Chunk, Hit, Location

    hit = Hit(Chunk("guia dir/guia.rst", ("Instalar",), 0, "Instalar\ntexto", 3,
                    Location("line", 120)), 1.0)
    assert source_label(hit) == "guia dir/guia.rst:120 > Instalar"
    linked = source_label(hit, docs=tmp_path)
    uri = (tmp_path / "guia dir/guia.rst").as_uri()
    assert linked == f"\x1b]8;;{uri}\x1b\\guia dir/guia.rst:120\x1b]8;;\x1b\\ > Instalar"
    assert "%20" in uri  # the address is escaped; the label stays as the user named it
