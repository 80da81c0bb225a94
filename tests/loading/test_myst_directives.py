"""MyST directives read as Sphinx renders them: a tab set, a dropdown or a list table is
Markdown under its title (no `:::{tab-item}` line in a passage), a code directive is code
without its options, and a directive that shows no text shows none. Every passage of such
a page still cites the line its own text starts on."""

from __future__ import annotations

from pathlib import Path

from docai.chunking import chunk_document
from docai.loading import load_file
from tests.loading.results import document
from tests.loading.test_citation_lines import CHUNKING, cited_lines_hold_their_text, paragraphs


def test_a_note_and_a_tab_set_keep_every_passage_on_its_own_line(tmp_path: Path) -> None:
    body = paragraphs(10)
    text = "\n".join([
        "# Install", "", body[0], "", ":::{note}", body[1], "", body[2], ":::", "",
        "::::{tab-set}", "", ":::{tab-item} pip", ":sync: pip", "", body[3], "", body[4], ":::",
        "", ":::{tab-item} conda", body[5], "", body[6], ":::", "::::", "",
        "````{tab-set}", "```{tab-item} uv", body[7], "", body[8], "```", "````", "",
        body[9], "",
    ])
    assert cited_lines_hold_their_text(tmp_path, "install.md", text) >= 4

    chunks = chunk_document(document(load_file(tmp_path, tmp_path / "install.md")), CHUNKING)
    passages = "\n".join(chunk.text for chunk in chunks)
    for markup in ("tab-set", "tab-item", ":::", "```", ":sync:"):
        assert markup not in passages
    for label in ("Note", "pip", "conda", "uv"):
        assert f"\n{label}\n" in passages or passages.startswith(label)
    for paragraph in body:  # the tabs' text is prose, every word of it
        assert " ".join(paragraph.split()[:5]) in " ".join(passages.split())


def test_directives_show_their_rendered_text_and_code_keeps_its_lines(tmp_path: Path) -> None:
    (tmp_path / "api.md").write_text("\n".join([
        "# API", "",
        "```{currentmodule} mypkg", "```", "",
        "```{image} logo.png", ":alt: the logo", "```", "",
        "```{autofunction} mypkg.run", "```", "",
        "```{dropdown} Advanced use", "Set **retries** to a [number](x.md).", "```", "",
        "Read {ref}`the options <opts-label>` and call {func}`~mypkg.api.run`.", "",
        "```{list-table} Options", ":header-rows: 1", "", "* - Name", "  - Meaning",
        "* - fast", "  - Runs quickly", "```", "",
        "```{code-block} python", ":caption: run.py", ":emphasize-lines: 1", "",
        "print('**not bold**')", "```", "",
        ":::{code-block} text", "$ mypkg --fast", ":::", "",
        "::: mypkg.api", "    options:", "      show_source: false", "", "The end.", "",
    ]), encoding="utf-8")
    sections = document(load_file(tmp_path, tmp_path / "api.md")).sections
    text = "\n\n".join(section.text for section in sections)

    assert "Advanced use\n\nSet retries to a number." in text
    assert "Read the options and call run." in text
    assert "Options\n\n- - Name\n  - Meaning\n- - fast\n  - Runs quickly" in text
    assert "print('**not bold**')" in text and "$ mypkg --fast" in text
    assert text.endswith("The end.")
    for hidden in ("mypkg.run", "mypkg.api", "show_source", "opts-label", "logo", ":caption:",
                   "emphasize", "header-rows", "{", "```"):
        assert hidden not in text


def test_a_long_markdown_list_and_listing_cite_each_passage_by_its_line(tmp_path: Path) -> None:
    body = paragraphs(16)
    items = [f"{n + 1}. {body[2 * n]}\n\n   {body[2 * n + 1]}\n" for n in range(8)]
    listing = [f"step{n} = configure(option{n}, retries={n})  # part {n} of the setup"
               for n in range(30)]
    text = "\n".join(["# Steps", "", *items, "```python", *listing, "```", ""])
    assert cited_lines_hold_their_text(tmp_path, "steps.md", text) >= 8


def test_an_eval_rst_block_cites_each_passage_by_its_own_line(tmp_path: Path) -> None:
    body = paragraphs(8)
    listing = [f"    step{n} = configure(option{n}, retries={n})  # part {n} of the setup"
               for n in range(20)]
    text = "\n".join(["# Reference", "", "```{eval-rst}", *(f"{p}\n" for p in body[:4]),
                      ".. code-block:: python", "", *listing, "", *(f"{p}\n" for p in body[4:]),
                      "```", ""])
    assert cited_lines_hold_their_text(tmp_path, "reference.md", text) >= 6
