"""HTML read straight from lxml's tree, as it read when BeautifulSoup built the tree.

The parser was rewritten to walk lxml's tree directly (BeautifulSoup's pure-Python tree
took two thirds of an index build); its output was compared with the old one over every
page of the evaluation's collections and four Debian documentation packages, with no
difference. These snippets pin the rules where the two trees could part: what a `<pre>`'s
text leaves out, comments and processing instructions inside words, XHTML namespaces,
upper-case markup, content after a stray `</html>`, and which part of a page is content.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from docai.loading import load_file
from docai.records import Document


def load(tmp_path: Path, markup: str, name: str = "pagina.html") -> Document:
    path = tmp_path / name
    path.write_text(markup, encoding="utf-8")
    result = load_file(tmp_path, path)
    assert result.document is not None, result.skipped
    return result.document


def sections(document: Document) -> list[tuple[tuple[str, ...], str]]:
    return [(section.heading_path, section.text) for section in document.sections]


def test_pre_keeps_its_text_as_written_without_comments_scripts_or_ruby_annotations(
    tmp_path: Path,
) -> None:
    doc = load(
        tmp_path,
        "<h1>C</h1><pre>x = 1<!-- nota --> # ok\n<span hidden>visível no código</span>\n"
        "<ruby>漢<rt>kan</rt></ruby>\n<script>s()</script>fim</pre>",
    )
    assert sections(doc) == [(("C",), "x = 1 # ok\nvisível no código\n漢\nfim")]


def test_comments_and_processing_instructions_inside_a_word_do_not_split_it(
    tmp_path: Path,
) -> None:
    doc = load(tmp_path, "<p>meio<!-- c -->termo<?php echo 1 ?>junto e <b>mais</b></p>")
    assert sections(doc) == [(("pagina",), "meiotermojunto e mais")]


def test_a_table_row_keeps_every_cell_in_its_column(tmp_path: Path) -> None:
    doc = load(
        tmp_path,
        "<table><tr><th>Opção</th><th>Padrão</th><th>Nota</th></tr>"
        "<tr><td>top-k</td><td hidden>3</td><td><span hidden>x</span>curta</td></tr></table>",
    )
    assert sections(doc) == [(("pagina",), "Opção | Padrão | Nota\ntop-k | 3 | curta")]


def test_xhtml_with_namespaces_reads_like_html(tmp_path: Path) -> None:
    doc = load(
        tmp_path,
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>'
        '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="pt"><head><title>X</title></head>'
        '<body><div class="section"><svg xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<use xlink:href="#i"/></svg><p>Texto <a xlink:href="#">link</a>.</p></div></body></html>',
        name="x.xhtml.html",
    )
    assert doc.title == "X"
    assert sections(doc) == [(("X",), "Texto link.")]


def test_upper_case_markup_follows_the_same_rules(tmp_path: Path) -> None:
    doc = load(
        tmp_path,
        "<HTML><BODY><H1>Maiúsculas</H1><P CLASS='x'>Texto <B>forte</B>.</P>"
        "<DIV ID='footer'>rodapé</DIV><A CLASS='headerlink'>¶</A></BODY></HTML>",
    )
    assert doc.title == "Maiúsculas"
    assert sections(doc) == [(("Maiúsculas",), "Texto forte.")]


def test_role_main_is_the_content_and_nested_articles_are_read_once(tmp_path: Path) -> None:
    main = load(tmp_path, "<body><div>menu</div><div role='main'><h1>P</h1><p>corpo</p></div>")
    assert sections(main) == [(("P",), "corpo")]
    nested = load(
        tmp_path,
        "<body><article><h1>Fora</h1><article><h2>Dentro</h2><p>x</p></article></article>",
        name="artigos.html",
    )
    assert sections(nested) == [(("Fora", "Dentro"), "x")]


def test_comments_in_the_title_are_kept_as_bs4_kept_them_in_title_text(tmp_path: Path) -> None:
    # libxml2 reads <title> as raw text, so a "comment" in it is part of the title.
    doc = load(tmp_path, "<html><head><title>Nome <!-- c -->da página</title></head><p>x</p>")
    assert doc.title == "Nome <!-- c -->da página"


def test_html_in_markdown_after_a_stray_html_end_tag_is_still_read(tmp_path: Path) -> None:
    # libxml2 reports what follows `</html>` as a second page, which lxml's own tree drops.
    doc = load(
        tmp_path,
        '# Doc\n\nIntro.\n\n<div class="note">\n<p>Nota <b>importante</b>.</p>\n</div>\n\n'
        "<details><summary>Mais</summary>\n\nTexto.\n\n</details>\n\n"
        "<table><tr><td>a</td><td>b</td></tr></table>\n\n</html>\n<p>resto</p>\n",
        name="doc.md",
    )
    assert sections(doc) == [
        (("Doc",), "Intro.\n\nNota importante.\n\nMais\n\nTexto.\n\na | b\n\nresto")
    ]


def test_a_page_with_only_a_head_has_no_text(tmp_path: Path) -> None:
    path = tmp_path / "cabeca.html"
    path.write_text("<html><head><title>Só cabeça</title></head></html>", encoding="utf-8")
    result = load_file(tmp_path, path)
    assert result.document is None and result.skipped is not None


def test_a_search_on_a_saved_index_loads_no_parser(tmp_path: Path) -> None:
    """The parsers (lxml, BeautifulSoup, docai's HTML and Markdown readers, with
    markdown-it's set-up) are imported when a file must be parsed: a `docai search` on an
    up-to-date index parses nothing, so it does not pay for them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guia.md").write_text("# Guia\n\nO cache guarda o índice.\n", encoding="utf-8")
    (docs / "pagina.html").write_text("<h1>Página</h1><p>Servidor local.</p>", encoding="utf-8")
    options = ["--docs", str(docs), "--cache-dir", str(tmp_path / "cache")]
    script = (
        "import json, sys\n"
        "from docai.cli.main import main\n"
        "status = main(sys.argv[1:])\n"
        "parsers = {'lxml', 'bs4', 'docai.loading.html', 'docai.loading.markdown'}\n"
        "loaded = sorted(set(sys.modules) & parsers)\n"
        "print(json.dumps({'status': status, 'parsers': loaded}), file=sys.stderr)\n"
    )

    def run(*args: str) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", script, *options, *args],
            capture_output=True, text=True, check=False, timeout=120,
        )
        result: dict[str, object] = json.loads(done.stderr.strip().splitlines()[-1])
        return result

    assert run("index")["status"] == 0  # parses, in this process or in its workers
    assert run("search", "onde fica o cache?") == {"status": 0, "parsers": []}


def test_a_page_nested_three_hundred_deep_keeps_its_text(tmp_path: Path) -> None:
    # libxml2 drops what lies deeper than 256 elements unless told otherwise.
    doc = load(tmp_path, "<div>" * 300 + "<p>fundo do poço</p>" + "</div>" * 300)
    assert sections(doc) == [(("pagina",), "fundo do poço")]
