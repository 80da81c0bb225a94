"""MkDocs pages as Material for MkDocs renders them: an HTML block marked `markdown`
(`<figure markdown>`, `<div markdown="1">`, the md_in_html extension) is read as Markdown,
and an attribute list after a link or an image (`{ loading=lazy }`, attr_list) is not
text. Hatch's blog showed `![Testing Jinja example](….gif){ loading=lazy role="img" }` in
its passages."""

from __future__ import annotations

from pathlib import Path

from docai.chunking import chunk_document
from docai.loading import load_file
from tests.loading.results import document
from tests.loading.test_citation_lines import CHUNKING


def passages_of(tmp_path: Path, text: str) -> str:
    (tmp_path / "page.md").write_text(text, encoding="utf-8")
    chunks = chunk_document(document(load_file(tmp_path, tmp_path / "page.md")), CHUNKING)
    return "\n".join(chunk.text for chunk in chunks)


def test_html_blocks_marked_markdown_are_read_as_markdown(tmp_path: Path) -> None:
    shown = passages_of(tmp_path, "\n".join([
        "# Test command", "", "Hatch runs the tests of Jinja in every environment:", "",
        "<figure markdown>",
        '  ![Testing Jinja example](release/testing-jinja.gif){ loading=lazy role="img" }',
        "</figure>", "",
        '<div class="grid" markdown="1">', "**Fast** installs and a [lock file](lock.md).",
        "</div>", "",
        "<div markdown>", "<div markdown>", "Nested *twice* and still prose.", "</div>",
        "</div>", "",
    ]))
    assert "Testing Jinja example" in shown
    assert "Fast installs and a lock file." in shown
    assert "Nested twice and still prose." in shown
    for markup in ("![", "](", "{ loading", "**", "markdown", "<div", "</figure>"):
        assert markup not in shown, markup


def test_attribute_lists_after_links_and_images_are_not_text(tmp_path: Path) -> None:
    shown = passages_of(tmp_path, "\n".join([
        "# Install", "",
        "[![Packaging status](https://repology.org/badge.svg){ loading=lazy .off-glb }]"
        "(https://repology.org/project/hatchling)",
        "", "Read the [guide](guide.md){: .button } first, then {curly} braces stay.", "",
    ]))
    assert "Packaging status" in shown
    assert "Read the guide first, then {curly} braces stay." in shown
    assert "loading=lazy" not in shown and ".button" not in shown


def test_other_html_blocks_are_still_read_as_html(tmp_path: Path) -> None:
    shown = passages_of(tmp_path, "# Page\n\n<div class=\"note\">\n**not bold** here\n</div>\n")
    assert "**not bold** here" in shown  # HTML's own text, as a browser shows it
