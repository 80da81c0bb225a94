"""HTML pages as docai sees them: the page's prose, without site chrome, via load_file."""

from __future__ import annotations

import warnings
from pathlib import Path

from docai.loading import load_file
from docai.records import Document


def load_html(tmp_path: Path, markup: str, name: str = "pagina.html") -> Document:
    path = tmp_path / name
    path.write_text(markup, encoding="utf-8")
    result = load_file(tmp_path, path)
    assert result.skipped is None, result.skipped
    assert result.document is not None
    return result.document


def all_text(document: Document) -> str:
    return "\n".join(section.text for section in document.sections)


SITE_PAGE = """<!DOCTYPE html>
<html><head><title>Instalação — Meu Projeto</title>
<style>body { color: red }</style><script>var tracker = 1;</script></head>
<body>
<header><a href="/">Meu Projeto</a> Entrar</header>
<nav><a href="/">Início</a> <a href="/blog">Blog</a></nav>
<div role="navigation">Migalhas de pão</div>
<div class="conteudo">
  <h1>Instalação</h1>
  <p>Instale com pip.</p>
  <h2>Requisitos</h2>
  <p>Python 3.11.</p>
  <h3>Opcional</h3>
  <p>Ollama.</p>
  <h2>Passos</h2>
  <p>Rode o instalador.</p>
  <span aria-hidden="true">ícone decorativo</span>
  <noscript>Ative o JavaScript</noscript>
  <template><p>modelo oculto</p></template>
  <svg><text>rótulo svg</text></svg>
  <iframe src="x.html"></iframe>
</div>
<aside>Posts relacionados</aside>
<footer>© 2024 Rodapé</footer>
</body></html>
"""


def test_headings_make_paths_and_title_comes_from_title_tag(tmp_path: Path) -> None:
    doc = load_html(tmp_path, SITE_PAGE)
    assert doc.title == "Instalação — Meu Projeto"
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (("Instalação",), "Instale com pip."),
        (("Instalação", "Requisitos"), "Python 3.11."),
        (("Instalação", "Requisitos", "Opcional"), "Ollama."),
        (("Instalação", "Passos"), "Rode o instalador."),
    ]


def test_sphinx_and_mkdocs_permalink_marks_are_not_part_of_headings(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        '<body><main><h1>Install<a class="headerlink" href="#install" title="Permalink to '
        'this heading">¶</a></h1><p>Run it.</p><h2>From source<a class="headerlink" '
        'href="#src">&para;</a></h2><p>Build it.</p></main></body>',
    )
    assert [s.heading_path for s in doc.sections] == [("Install",), ("Install", "From source")]
    assert "¶" not in all_text(doc)


def test_a_sphinx_table_of_contents_is_navigation_not_content(tmp_path: Path) -> None:
    # A toctree lists other pages' titles; as text it would match almost any question.
    doc = load_html(
        tmp_path,
        '<body><main><h1>Welcome</h1><p>Start here.</p><div class="toctree-wrapper compound">'
        '<ul><li><a href="install.html">Installation</a></li><li><a href="api.html">API'
        "</a></li></ul></div></main></body>",
    )
    assert all_text(doc) == "Start here."


def test_chrome_scripts_and_hidden_content_are_dropped(tmp_path: Path) -> None:
    text = all_text(load_html(tmp_path, SITE_PAGE))
    for unwanted in ("tracker", "color", "Entrar", "Início", "Migalhas", "ícone", "JavaScript",
                     "modelo oculto", "rótulo svg", "Posts relacionados", "Rodapé"):
        assert unwanted not in text


def test_generator_navigation_bars_and_footers_are_chrome(tmp_path: Path) -> None:
    doc = load_html(tmp_path, """<html><head><title>VACUUM</title></head><body>
<div class="navheader"><table summary="Navigation header"><tr><td>Prev</td><td>Up</td>
<td>Home</td><td>Next</td></tr></table></div>
<div class="related" role="presentation"><a>previous</a> | <a>next</a> | <a>index</a></div>
<div id="hd"><div class="nav">Home | Table of contents | Index</div></div>
<h1>VACUUM</h1><p>VACUUM reclaims storage occupied by dead tuples.</p>
<dl><dt>fn(x)<a class="viewcode-link"><span>[source]</span></a></dt><dd>Cleans.</dd></dl>
<div id="sidebar"><h3>Last update:</h3><p>Nov 11, 2026</p></div>
<div class="navfooter"><table summary="Navigation footer"><tr><td>Prev</td></tr></table></div>
<div id="footer">Last updated 2024-05-31 00:35:55 UTC</div>
</body></html>""")
    text = all_text(doc)
    assert "VACUUM reclaims storage occupied by dead tuples." in text
    assert "fn(x)" in text and "Cleans." in text
    for chrome in ("Prev", "previous", "Table of contents", "[source]", "Last update"):
        assert chrome not in text
    assert [s.heading_path for s in doc.sections] == [("VACUUM",)]


def test_sections_and_headings_named_like_chrome_are_content(tmp_path: Path) -> None:
    doc = load_html(tmp_path, """<html><body><main><h1>Layout</h1>
<section id="sidebar"><h2>Sidebar</h2><p>Configure the sidebar width.</p></section>
<h2 id="footer">Footer</h2><p>The footer shows the copyright.</p></main></body></html>""")
    assert "Configure the sidebar width." in all_text(doc)
    assert ("Layout", "Footer") in [s.heading_path for s in doc.sections]


def test_header_inside_article_is_content_not_chrome(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<body><header>Site</header><article><header><h1>Notas</h1><p>por Ana</p></header>"
        "<p>Corpo.</p><footer>Revisado em maio</footer></article></body>",
    )
    assert doc.title == "Notas"
    assert doc.sections[0].text == "por Ana\n\nCorpo.\n\nRevisado em maio"
    assert "Site" not in all_text(doc)


def test_main_is_preferred_over_the_rest_of_the_page(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<body><div class='menu'>Produtos Preços</div><main><h1>Guia</h1><p>Conteúdo.</p></main>"
        "<div>Assine a newsletter</div></body>",
    )
    assert all_text(doc) == "Conteúdo."


def test_articles_are_used_when_there_is_no_main(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<body><div>Barra lateral</div><article><h2>Um</h2><p>a</p></article>"
        "<article><h2>Dois</h2><p>b</p></article></body>",
    )
    assert [(s.heading_path, s.text) for s in doc.sections] == [(("Um",), "a"), (("Dois",), "b")]


def test_pre_keeps_line_breaks_and_other_whitespace_collapses(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<h1>Código</h1><p>Texto   com\n   espaços e <b>ne</b>gr<i>ito</i> <code>x</code>.</p>"
        "<pre><code>def f():\n    return 1\n\nf()</code></pre>",
    )
    assert doc.sections[0].text == "Texto com espaços e negrito x.\n\ndef f():\n    return 1\n\nf()"


def test_block_elements_break_lines_and_lists_and_tables_keep_structure(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<h1>T</h1><div>um</div><div>dois<br>três</div>"
        "<ul><li><p>item a</p></li><li>item b<ul><li>sub</li></ul></li></ul>"
        "<table><tr><th>Opção</th><th>Padrão</th></tr><tr><td>top-k</td><td>3</td></tr></table>",
    )
    assert doc.sections[0].text == (
        "um\n\ndois\ntrês\n\n- item a\n- item b\n  - sub\n\nOpção | Padrão\ntop-k | 3"
    )


def test_entities_are_decoded(tmp_path: Path) -> None:
    doc = load_html(tmp_path, "<p>Tom &amp; Jerry &eacute; &#x2014; &lt;tag&gt;&nbsp;fim</p>")
    assert doc.sections[0].text == "Tom & Jerry é — <tag> fim"


def test_malformed_markup_still_loads(tmp_path: Path) -> None:
    doc = load_html(
        tmp_path,
        "<html><body><h1>Quebrado<p>Primeiro <b>negrito sem fim<p>Segundo</div></span>"
        "<h2>Depois</h2><p>ainda lido",
        name="quebrado.htm",
    )
    assert doc.title == "Quebrado"
    assert "Primeiro negrito sem fim" in doc.sections[0].text
    assert "Segundo" in doc.sections[0].text
    assert doc.sections[-1].heading_path == ("Quebrado", "Depois")
    assert doc.sections[-1].text == "ainda lido"


def test_page_without_title_or_h1_uses_stem_not_svg_title_nor_xml_declaration(
    tmp_path: Path,
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = load_html(
            tmp_path,
            '<?xml version="1.0" encoding="utf-8"?>\n<html><body><svg><title>ícone</title></svg>'
            "<p>Só um parágrafo.</p></body></html>",
            name="sobre.xhtml.html",
        )
    assert doc.title == "sobre.xhtml"
    assert doc.sections[0].heading_path == ("sobre.xhtml",)
    assert doc.sections[0].text == "Só um parágrafo."


def test_markup_only_page_is_skipped_as_having_no_text(tmp_path: Path) -> None:
    path = tmp_path / "vazio.html"
    path.write_text("<html><head><script>x()</script></head><body><nav>menu</nav></body></html>")
    result = load_file(tmp_path, path)
    assert result.document is None
    assert result.skipped is not None
    assert "nenhum texto" in result.skipped.reason
