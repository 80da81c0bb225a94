"""Each format read by its structure, through real files the tests write: reST (Sphinx
roles and directives), PDF, notebooks, EPUB, MDX and AsciiDoc; and each hostile case
(a broken PDF, an EPUB zip bomb, 10k-deep reST nesting, an include outside the folder)
is one reason naming the file, never a crash, a hang or a read outside the folder."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

from docai import messages
from docai.chunking import chunk_document
from docai.loading import load_file
from docai.loading.load import LoadResult
from docai.records import Location
from docai.settings import ChunkSettings
from tests.loading.epub_maker import make_epub
from tests.loading.pdf_maker import make_pdf
from tests.loading.results import document, reason


def load(root: Path, name: str, content: str | bytes) -> LoadResult:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return load_file(root, path)




SPHINX_PAGE = """\
Installation
============

Use :func:`~flask.Flask.run` or :ref:`the CLI <cli>`; see :doc:`/tutorial/index`
and :unknownrole:`odd text`.

.. toctree::
   :maxdepth: 2

   quickstart
   tutorial

.. versionadded:: 2.0
   Async views.

.. note::

   Python 3.8 or newer.

With pip
--------

.. code-block:: sh
   :caption: shell

   $ pip install Flask

.. autofunction:: flask.url_for

.. somecustomdirective:: arg
   :someoption: 1

   Custom body words.
"""


def test_sphinx_rest_reads_as_its_html_page_does(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "docs/install.rst", SPHINX_PAGE))
    assert doc.title == "Installation"
    text = "\n".join(section.text for section in doc.sections)
    for shown in ("Use run or the CLI; see tutorial", "odd text", "Async views",
                  "Note:", "Python 3.8 or newer", "$ pip install Flask", "arg",
                  "Custom body words"):
        assert shown in text, shown
    for hidden in (":func:", ":ref:", "toctree", "maxdepth", "quickstart", "caption",
                   "somecustomdirective", "someoption", "Unknown", "directive", "ERROR",
                   "flask.url_for"):
        assert hidden not in text, hidden
    paths = [section.heading_path for section in doc.sections]
    assert paths == [("Installation",), ("Installation", "With pip")]
    assert [section.location for section in doc.sections] == [
        Location("line", 1), Location("line", 20)]


def test_rest_file_metadata_is_hidden_and_substitutions_are_their_text(tmp_path: Path) -> None:
    page = (":orphan:\n:tocdepth: 2\n\nRelease\n=======\n\n"
            "This is |project| version |version|.\n\n"
            ".. |project| replace:: Zorblax\n.. |version| replace:: 4.2\n\n"
            "Fields later on the page stay:\n\n:Author: Ana\n")
    doc = document(load(tmp_path, "release.rst", page))
    text = "\n".join(section.text for section in doc.sections)
    assert "This is Zorblax version 4.2." in text
    assert "Author" in text and "Ana" in text
    assert "orphan" not in text and "tocdepth" not in text and "replace" not in text


def test_sphinx_sources_suffix_is_rest(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "_sources/install.rst.txt", SPHINX_PAGE))
    assert doc.sections[0].heading_path == ("Installation",)
    assert ":func:" not in doc.sections[0].text


def test_include_inside_the_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "common.rst").write_text("Shared paragraph about tokens.\n")
    doc = document(load(tmp_path, "page.rst", "Page\n====\n\n.. include:: parts/common.rst\n"))
    assert "Shared paragraph about tokens." in doc.sections[0].text


def test_include_outside_the_folder_is_one_notice_and_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.rst"
    secret.write_text("TOP SECRET WORDS\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("a.rst", "A\n=\n\nbody\n\n.. include:: ../secret.rst\n"),
                       ("b.rst", f"B\n=\n\nbody\n\n.. include:: {secret}\n"),
                       ("c.adoc", "= C\n\nbody\n\ninclude::../secret.rst[]\n")):
        result = load(docs, name, text)
        doc = document(result)
        assert all("SECRET" not in section.text for section in doc.sections)
        assert len(result.notices) == 1
        assert "secret.rst" in result.notices[0].message
        # An absolute include path is the docs folder's (Sphinx's rule): it is not there.
        expected = "não existe" if name == "b.rst" else "fora da pasta"
        assert expected in result.notices[0].message


def test_an_include_cycle_stops(tmp_path: Path) -> None:
    result = load(tmp_path, "loop.rst", "Loop\n====\n\nwords\n\n.. include:: loop.rst\n")
    assert "words" in document(result).sections[0].text
    assert result.notices and "aninhados demais" in result.notices[0].message


def test_ten_thousand_deep_rest_nesting_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    result = load(tmp_path, "deep.rst", "T\n=\n\n" + "- " * 10_000 + "fundo\n")
    assert "aninhada" in reason(result)


PAGE_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon"]


def manual_pages() -> list[list[str]]:
    pages = []
    for number, word in enumerate(PAGE_WORDS, 1):
        pages.append(["ACME Widget Manual", f"Chapter about {word} and the configu-",
                      f"ration of {word} widgets.", "Install" if number == 3 else f"{word} ends",
                      f"Page {number} of 5"])
    return pages


def test_pdf_pages_outline_and_cleaned_text(tmp_path: Path) -> None:
    data = make_pdf(manual_pages(), outline=[("Intro", 0), ("Install", 2)], title="ACME")
    doc = document(load(tmp_path, "manual.pdf", data))
    assert doc.title == "ACME"
    text = "\n".join(section.text for section in doc.sections)
    assert "configuration of alpha" in text  # dehyphenated
    assert "ACME Widget Manual" not in text and "of 5" not in text  # header, footer dropped
    by_page = {section.location.number: section.heading_path for section in doc.sections
               if section.location is not None}
    assert by_page[1] == ("Intro",) and by_page[3] == ("Install",)
    install = next(s for s in doc.sections if s.heading_path == ("Install",))
    assert [location.number for _, location in install.turns] == [4, 5]  # one section
    assert all(section.location and section.location.unit == "page"
               for section in doc.sections)


def test_a_pdf_section_over_page_breaks_is_chunked_whole_each_chunk_citing_its_page(
    tmp_path: Path,
) -> None:
    """As its HTML twin would be: chunks do not stop at a page's end, and each cites the
    page it starts on."""
    from docai.chunking import ChunkSettings, chunk_document

    pages = [[f"Page {n} word{n}x{line} " * 4 for line in range(25)] for n in range(1, 5)]
    doc = document(load(tmp_path, "long.pdf", make_pdf(pages, outline=[("Setup", 0)])))
    assert len(doc.sections) == 1
    chunks = chunk_document(doc, ChunkSettings())
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.location is not None
        first = re.search(r"word(\d+)x", chunk.text.split("\n", 1)[1])  # wordNx... on page N
        assert first is not None and chunk.location.number == int(first[1])
    assert chunks[-1].location is not None and chunks[-1].location.number > 1


def test_pdf_without_text_layer_or_broken_is_skipped_with_the_reason(tmp_path: Path) -> None:
    scan = make_pdf([[], []], images=True)
    assert reason(load(tmp_path, "scan.pdf", scan)) == messages.LOAD_SKIP_PDF_NO_TEXT
    assert reason(load(tmp_path, "blank.pdf", make_pdf([[], []]))) == messages.LOAD_SKIP_PDF_BLANK
    broken = make_pdf(manual_pages())[:400]
    assert "danificado" in reason(load(tmp_path, "broken.pdf", broken))
    assert "danificado" in reason(load(tmp_path, "junk.pdf", b"%PDF-1.7\n" + b"\x00garbage" * 99))


def test_notebook_cells_outputs_kept_short_images_dropped(tmp_path: Path) -> None:
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Vendas\n", "Resumo do mês."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1,
         "source": "total = vendas.sum()\nprint(total)",
         "outputs": [{"output_type": "stream", "name": "stdout",
                      "text": "\n".join(f"linha {n}" for n in range(50))},
                     {"output_type": "display_data", "metadata": {},
                      "data": {"image/png": "iVBORw0KGgo" * 5000,
                               "text/plain": "<Figure size 432x288 with 1 Axes>"}}]},
        {"cell_type": "markdown", "metadata": {}, "source": "## Conclusão\nCresceu."},
        {"cell_type": "markdown", "metadata": {}, "source": "#\n\nE segue crescendo."},
    ]}
    doc = document(load(tmp_path, "vendas.ipynb", json.dumps(notebook)))
    assert doc.title == "Vendas"
    # One section per heading, as the notebook's HTML page has it, running over cells: the
    # Markdown that introduces the code stays with it, and the code is cited by its cell.
    assert [(s.heading_path, s.location) for s in doc.sections] == [
        (("Vendas",), Location("cell", 1)), (("Vendas", "Conclusão"), Location("cell", 3))]
    sales = doc.sections[0]
    assert sales.text.startswith("Resumo do mês.")
    assert sales.location_at(sales.text.index("total = vendas.sum()")) == Location("cell", 2)
    assert "linha 0" in sales.text and "linha 30" not in sales.text
    assert "iVBOR" not in sales.text and "Figure size" not in sales.text  # the plot's stand-in
    assert "inválido" in reason(load(tmp_path, "bad.ipynb", '{"cells": ['))


def test_a_notebook_section_over_many_cells_cites_the_cell_each_chunk_starts_in(
        tmp_path: Path) -> None:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Relatório"}]
    for number in range(2, 42):
        cells.append({"cell_type": "markdown", "metadata": {},
                      "source": f"Passo {number}: " + " ".join(["o inventário confere"] * 20)})
    doc = document(load(tmp_path, "relatorio.ipynb",
                        json.dumps({"nbformat": 4, "metadata": {}, "cells": cells})))
    assert len(doc.sections) == 1
    chunks = chunk_document(doc, ChunkSettings())
    assert len(chunks) > 3
    for chunk in chunks:
        body = chunk.text.split("\n", 1)[1]
        first_step = int(re.search(r"Passo (\d+)", body).group(1))  # type: ignore[union-attr]
        starts_inside = not body.startswith("Passo")
        assert chunk.location == Location("cell", first_step - starts_inside), chunk.text[:80]


def test_epub_chapters_in_spine_order(tmp_path: Path) -> None:
    data = make_epub("Livro", [("a.xhtml", "<h1>Primeiro</h1><p>Texto um.</p>"),
                               ("b.xhtml", "<h1>Segundo</h1><p>Texto dois.</p>")], spine=[1, 0])
    doc = document(load(tmp_path, "livro.epub", data))
    assert doc.title == "Livro"
    assert [s.heading_path for s in doc.sections] == [("Segundo",), ("Primeiro",)]


def test_epub_zip_bomb_is_refused_unread(tmp_path: Path) -> None:
    good = zipfile.ZipFile(io.BytesIO(make_epub("Bomba", [("a.xhtml", "<p>x</p>")])))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bomb:
        for name in good.namelist():
            if name != "OEBPS/a.xhtml":
                bomb.writestr(name, good.read(name))
        with bomb.open("OEBPS/a.xhtml", "w", force_zip64=True) as member:
            block = b" " * (1 << 20)
            for _ in range(200):  # 200 MiB of spaces, ~200 KiB compressed
                member.write(block)
    assert len(buffer.getvalue()) < 1 << 20
    assert "bomba zip" in reason(load(tmp_path, "bomba.epub", buffer.getvalue()))
    assert "danificado" in reason(load(tmp_path, "falso.epub", b"PK\x03\x04" + b"x" * 100))


MDX = """---
title: Getting started
---
import Tabs from '@theme/Tabs';
export const meta = {
  author: 'x',
};

# Install

{/* hidden comment */}

:::tip Quick

Use **npm** to install.

:::

<Tabs>
<TabItem value="yarn" label="Yarn">

Run yarn add widgetron in the project.

</TabItem>
</Tabs>

<Button onClick={() => alert('x')}>Click here for more</Button>
"""


def test_mdx_keeps_words_and_drops_code_of_the_page(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "intro.mdx", MDX))
    assert doc.title == "Getting started"
    text = doc.sections[0].text
    for shown in ("Tip Quick", "Use npm to install.", "Run yarn add widgetron",
                  "Click here for more"):
        assert shown in text, shown
    for hidden in ("import", "export", "author", "hidden comment", "TabItem", "onClick",
                   ":::"):
        assert hidden not in text, hidden
    # Lines are the file's: dropped imports leave their lines blank.
    plain = document(load(tmp_path, "plain.mdx", "import X from 'x';\n\n# Title\n\n<X>Hi</X>\n"))
    assert plain.sections[0].location == Location("line", 3)


ASCIIDOC = """= Widget Guide
:product: WidgetPro

Intro about *{product}*.

== Install

NOTE: Needs Python 3.

[source,bash]
----
pip install widget
----

See <<config,the configuration>> and link:https://example.org[the site].

[[config]]
=== Configure

|===
| Key | Value
| port | 8080
|===

// a comment nobody reads
"""


def test_asciidoc_titles_blocks_attributes(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "guide.adoc", ASCIIDOC))
    assert doc.title == "Widget Guide"
    paths = [(s.heading_path, s.location) for s in doc.sections]
    assert paths == [
        (("Widget Guide",), Location("line", 1)),
        (("Widget Guide", "Install"), Location("line", 6)),
        (("Widget Guide", "Install", "Configure"), Location("line", 18)),
    ]
    text = "\n".join(s.text for s in doc.sections)
    for shown in ("Intro about WidgetPro.", "Note: Needs Python 3.", "pip install widget",
                  "See the configuration and the site.", "port | 8080"):
        assert shown in text, shown
    for hidden in ("[source", "[[config]]", "<<", "link:", "comment nobody", "----"):
        assert hidden not in text, hidden


def test_asciidoc_two_line_titles_and_macros_as_git_writes_them(tmp_path: Path) -> None:
    page = ("git-commit(1)\n=============\n\nNAME\n----\ngit-commit - Record changes\n\n"
            "HOOKS\n-----\nThis command can run 'commit-msg' hooks, see linkgit:githooks[5].\n"
            "\nRun:\n----\n$ git commit\n----\n")
    doc = document(load(tmp_path, "git-commit.adoc", page))
    assert doc.title == "git-commit(1)"
    assert [(s.heading_path, s.location) for s in doc.sections] == [
        (("git-commit(1)", "NAME"), Location("line", 4)),
        (("git-commit(1)", "HOOKS"), Location("line", 8)),
    ]
    assert "can run commit-msg hooks, see githooks(5)." in doc.sections[1].text
    assert "$ git commit" in doc.sections[1].text


def test_a_rest_definition_list_reads_in_the_blocks_of_its_html_page(tmp_path: Path) -> None:
    """Sphinx writes a definition list as `<dt>` and `<dd><p>`; the reST source must give the
    same blocks, or a long list packs into chunks differently from its HTML twin."""
    items = [(f"flag{n}", f"This tag says to do thing number {n} during the build.")
             for n in range(3)]
    rest = "Options\n=======\n\nSupporting the variable is recommended.\n\n" + "".join(
        f"{term}\n    {body}\n\n" for term, body in items)
    html = ("<html><body><h1>Options</h1><p>Supporting the variable is recommended.</p><dl>"
            + "".join(f"<dt>{term}</dt><dd><p>{body}</p></dd>" for term, body in items)
            + "</dl></body></html>")
    from_rest = document(load(tmp_path, "options.rst", rest)).sections[0].text
    from_html = document(load(tmp_path, "options.html", html)).sections[0].text
    assert from_rest == from_html
    assert "flag1\n\nThis tag says to do thing number 1" in from_rest


def test_pdf_running_headers_naming_a_section_are_dropped_and_a_short_title_found_on_its_line(
    tmp_path: Path,
) -> None:
    """A book's header names the page's chapter or section beside the page number, so it
    repeats on a few pages only; and a short outline title ("Files") also occurs in the text
    above its heading, which must stay with the section before."""
    pages = [
        ["2.1 Sizes", "The size is given in kibibytes, divided by 1024.", "more size words",
         "2.1. Sizes 11"],
        ["12 Chapter 2. Fields", "The Packages files list the size too.", "2.2 Files",
         "This field lists files."],
        ["2.2. Files 13", "Each line names one file.", "files words", "last line"],
    ]
    data = make_pdf(pages, outline=[("Fields", 0), ("Sizes", 0), ("Files", 1)])
    doc = document(load(tmp_path, "manual.pdf", data))
    text = "\n".join(section.text for section in doc.sections)
    for header in ("2.1. Sizes 11", "12 Chapter 2. Fields", "2.2. Files 13"):
        assert header not in text, header
    before = [s for s in doc.sections if s.heading_path[-1] == "Sizes"]
    assert any("The Packages files list the size too." in s.text for s in before)
    files = [s for s in doc.sections if s.heading_path[-1] == "Files"]
    assert files[0].text.startswith("2.2 Files") and files[0].location == Location("page", 2)


def test_a_pdf_whose_text_is_only_web_addresses_is_read_with_a_note(tmp_path: Path) -> None:
    pages = [[f"https://example.org/{word}/index.html", f"https://{word}.example.net/"]
             for word in ("install", "usage", "config", "network", "storage", "backup")]
    result = load(tmp_path, "links.pdf", make_pdf(pages))
    assert result.document is not None
    assert [notice.message for notice in result.notices] == [
        messages.LOAD_NOTE_PDF_LITTLE_TEXT.format(pages=6)]
    assert not load(tmp_path, "manual.pdf", make_pdf(manual_pages())).notices


def test_navigation_is_not_read_as_content(tmp_path: Path) -> None:
    """A PDF's table of contents (dot leaders) and Sphinx's generated index pages are
    navigation: they would outrank the pages they point to."""
    contents = ["Contents", "1 Installing the widget ........ 3", "2 Configuring . . . . . 7"]
    body = ["Installing the widget takes a screwdriver and patience."]
    pdf = document(load(tmp_path, "manual.pdf", make_pdf([contents, body])))
    text = "\n".join(section.text for section in pdf.sections)
    assert "patience" in text and "....." not in text and "Configuring" not in text
    index_page = ('<html><body><div class="body"><h1>Index</h1><div class="genindex-jumpbox">'
                  '<a href="#A">A</a></div><table class="indextable genindextable"><tr><td>'
                  '<a href="install.html#widget">widget (class)</a></td></tr></table>'
                  '</div></body></html>')
    assert reason(load(tmp_path, "genindex.html", index_page)) == \
        messages.LOAD_SKIP_GENERATED_INDEX


def test_antora_components_attributes_resource_includes_and_menus(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    module = docs / "component" / "modules" / "ROOT"
    (module / "pages").mkdir(parents=True)
    (module / "partials").mkdir()
    (docs / "component" / "antora.yml").write_text(
        "name: asciidoctor\nversion: ~\nasciidoc:\n  attributes:\n"
        "    release-version: 2.0.23\n    url-org: https://example.org@\n"
        "nav:\n- modules/ROOT/nav.adoc\n", encoding="utf-8")
    (module / "partials" / "intro.adoc").write_text("Partial intro words.\n", encoding="utf-8")
    (module / "nav.adoc").write_text("* xref:install.adoc[]\n* xref:usage.adoc[]\n",
                                     encoding="utf-8")
    page = "= Install\n\nInstall release {release-version} from {url-org}.\n\n" \
           "include::partial$intro.adoc[]\n"
    result = load(docs, "component/modules/ROOT/pages/install.adoc", page)
    text = "\n".join(section.text for section in document(result).sections)
    assert "Install release 2.0.23 from https://example.org." in text
    assert "Partial intro words." in text and not result.notices
    assert reason(load_file(docs, module / "nav.adoc")) == messages.LOAD_SKIP_ANTORA_NAV
