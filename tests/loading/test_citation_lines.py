"""Every passage of a text format is cited by the line its own text starts on: the later
passages of a long section too, and in Markdown with MkDocs or MyST notes (which are
rewritten before parsing). Checked as a reader checks a citation: by opening the file at
the cited line and finding the passage's first words there."""

from __future__ import annotations

from pathlib import Path

import pytest

from docai.chunking import chunk_document
from docai.loading import load_file
from docai.settings import ChunkSettings

CHUNKING = ChunkSettings(max_tokens=60, overlap_tokens=0)
NEAR = 4  # the heading line, a blank line, the text: well inside the 5 lines asked for


def paragraphs(count: int) -> list[str]:
    return [f"Paragraph number{n} explains setting option{n} in a few plain words, "
            f"one sentence long enough to need its own room." for n in range(count)]


def cited_lines_hold_their_text(root: Path, name: str, text: str) -> int:
    """Load and chunk `text` as file `name`; assert each chunk's first body words are on
    its cited line or the few after it (a section's first passage cites its heading);
    return how many chunks there were."""
    path = root / name
    path.write_text(text, encoding="utf-8")
    result = load_file(root, path)
    assert result.document is not None, result.skipped
    lines = text.split("\n")
    chunks = chunk_document(result.document, CHUNKING)
    for chunk in chunks:
        assert chunk.location is not None and chunk.location.unit == "line", chunk
        opening = " ".join(chunk.text.split("\n", 1)[1].split()[:2])
        cited = chunk.location.number - 1
        assert any(opening in line for line in lines[cited:cited + NEAR]), (cited, chunk.text)
    return len(chunks)


@pytest.mark.parametrize("name, heading", [
    ("guide.md", "# Settings\n\n"),
    ("guide.rst", "Settings\n========\n\n"),
    ("guide.adoc", "= Settings\n\n"),
])
def test_every_passage_of_a_long_section_cites_its_own_line(tmp_path, name, heading):
    text = heading + "\n\n".join(paragraphs(12)) + "\n"
    assert cited_lines_hold_their_text(tmp_path, name, text) >= 6


def test_markdown_notes_and_tabs_keep_every_line_number(tmp_path):
    body = paragraphs(8)
    text = "\n".join([
        "# Install", "", body[0], "", '!!! note "Before you start"', "", "    " + body[1], "",
        body[2], "", '=== "pip"', "", "    " + body[3], "", '=== "conda"', "",
        "    " + body[4], "", "```{warning}", body[5], "```", "", ":::{tip}", body[6], ":::",
        "", "(label)=", "## Next", "", body[7], "",
    ])
    assert cited_lines_hold_their_text(tmp_path, "install.md", text) >= 4


def long_paragraph(count: int) -> str:
    """One paragraph of `count` sentences, one a line: the chunker must cut inside it."""
    return "\n".join(f"Sentence number{n} tells how setting option{n} changes the run."
                     for n in range(count))


@pytest.mark.parametrize("name, heading", [
    ("guide.rst", "Settings\n========\n\n"),
    ("guide.adoc", "= Settings\n\n"),
])
def test_a_paragraph_cut_in_several_passages_cites_each_by_its_line(tmp_path, name, heading):
    text = heading + long_paragraph(40) + "\n"
    assert cited_lines_hold_their_text(tmp_path, name, text) >= 3


def test_asciidoc_options_continuations_and_listings_cite_their_lines(tmp_path):
    """git's manual pages: `--term::` items whose text goes on after `+` lines, long
    listings, ``quoted'' words: every passage cites the line its text starts on, and no
    marker shows."""
    body = paragraphs(12)
    listing = "\n".join(f"git config option{n}.value {n}" for n in range(30))
    text = "\n".join([
        "= git-demo(1)", "", "== OPTIONS", "", body[11], "See ``Interactive mode'' below.", "",
        "--all::", "--every::",
        "\t" + body[0], "+", body[1], "+", body[2], "", "-l;;", "\t" + body[3], "",
        "----", listing, "----", "",
        *(f"--opt{n}::\n\t{body[n]}\n+\n{body[n + 1]}\n" for n in range(4, 11)),
    ])
    path = tmp_path / "git-demo.adoc"
    path.write_text(text, encoding="utf-8")
    document = load_file(tmp_path, path).document
    assert document is not None
    lines = text.split("\n")
    chunks = chunk_document(document, CHUNKING)
    assert len(chunks) >= 6
    for chunk in chunks:  # a term and its text are two lines: the term's word is looked for
        assert chunk.location is not None
        opening = chunk.text.split("\n", 1)[1].split()[0]
        cited = chunk.location.number - 1
        assert any(opening in line for line in lines[cited:cited + NEAR]), (cited, chunk.text)
    shown = "\n".join(section.text for section in document.sections)
    assert "--all\n\n--every\n\n" + body[0] in shown
    assert "See “Interactive mode” below." in shown  # the older syntax's quotes
    for marker in ("::", ";;", "\n+", "+\n", "``", "''"):
        assert marker not in shown, marker
