"""DOCX, ODT and Org-mode files read as their own programs show them: headings as the
heading path, paragraphs, lists and tables as text, what the document hides (deleted
revisions, comments, drawers, comment blocks) left out, Org passages cited by their line;
and the hostile ones (zip bombs, a directory of 20,000 entries, a damaged zip, a number of
thousands of digits) skipped with their reason."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from docai.loading import LoadResult, load_file
from docai.records import Document, Location
from tests.loading.office_makers import docx_paragraph as para
from tests.loading.office_makers import make_docx, make_odt, zipped
from tests.loading.results import document, reason


def load(root: Path, name: str, data: bytes) -> LoadResult:
    path = root / name
    path.write_bytes(data)
    return load_file(root, path)




def by_path(doc: Document) -> dict[tuple[str, ...], str]:
    return {section.heading_path: section.text for section in doc.sections}


def test_a_docx_reads_its_headings_whatever_language_word_named_their_styles(
        tmp_path: Path) -> None:
    body = (para("Manual do Widget", "Ttulo")
            + para("Introdução geral.")
            + para("Instalação", "Ttulo1")
            + para("Rode o instalador.")
            + para("Baixe o pacote", "PargrafodaLista", listed=True)
            + '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>'
              '<w:r><w:t>antes</w:t></w:r><w:r><w:tab/><w:t>depois</w:t></w:r>'
              '<w:del><w:r><w:delText>texto apagado</w:delText></w:r></w:del></w:p>'
            + para("Requisitos", "Ttulo2")
            + "<w:tbl><w:tr><w:tc>" + para("Sistema") + "</w:tc><w:tc>" + para("Linux")
            + "</w:tc></w:tr></w:tbl>"
            + '<w:p><w:r><w:t>Veja a caixa.</w:t></w:r><w:r><w:txbxContent>'
            + para("Texto da caixa.") + "</w:txbxContent></w:r></w:p>")
    styles = {"Ttulo": "Title", "Ttulo1": "heading 1", "Ttulo2": "heading 2",
              "PargrafodaLista": "List Paragraph"}
    doc = document(load(tmp_path, "manual.docx", make_docx(body, styles=styles)))
    assert doc.title == "Manual do Widget"  # no core.xml: the Title paragraph
    sections = by_path(doc)
    assert sections[("Manual do Widget",)] == "Introdução geral."
    install = sections[("Manual do Widget", "Instalação")]
    assert install == "Rode o instalador.\n\n- Baixe o pacote\n\nantes\tdepois"
    needs = sections[("Manual do Widget", "Instalação", "Requisitos")]
    assert "Sistema | Linux" in needs
    assert needs.count("Texto da caixa.") == 1 and "Veja a caixa." in needs
    assert "apagado" not in "\n".join(sections.values())


def test_a_docx_without_styles_reads_heading_ids_and_its_core_title(tmp_path: Path) -> None:
    body = para("Uso", "Heading1") + para("Chame widget --help.")
    doc = document(load(tmp_path, "uso.docx", make_docx(body, title="Guia de Uso")))
    assert doc.title == "Guia de Uso"
    assert by_path(doc) == {("Uso",): "Chame widget --help."}


ODT_BODY = """
<text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>
<text:table-of-content><text:index-body><text:p>Instalação ..... 1</text:p></text:index-body>
</text:table-of-content>
<text:h text:outline-level="1">Instalação</text:h>
<text:p>Rode o <text:span>instalador</text:span>
com<text:s text:c="3"/>calma.<text:note><text:note-citation>1</text:note-citation>\
<text:note-body><text:p>Nota de rodapé.</text:p></text:note-body></text:note>\
 E depois<text:tab/>reinicie.</text:p>
<office:annotation><text:p>comentário do revisor</text:p></office:annotation>
<text:tracked-changes><text:changed-region><text:deletion><text:p>frase apagada</text:p>
</text:deletion></text:changed-region></text:tracked-changes>
<text:list><text:list-item><text:p>Baixe o pacote</text:p></text:list-item></text:list>
<text:h text:outline-level="2">Requisitos</text:h>
<table:table><table:table-row><table:table-cell><text:p>Sistema</text:p></table:table-cell>
<table:table-cell><text:p>Linux</text:p></table:table-cell></table:table-row></table:table>
<text:h text:outline-level="99999999999999999999999999">Fundo</text:h>
<text:p>Espaços<text:s text:c="9999999999999999999999999999999999"/>fim</text:p>
"""


def test_an_odt_reads_headings_paragraphs_lists_and_tables(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "guia.odt", make_odt(ODT_BODY, title="Guia ODT")))
    assert doc.title == "Guia ODT"
    sections = by_path(doc)
    install = sections[("Instalação",)]
    # the line end in the XML is a space, as ODF says; text:s and text:tab are kept
    assert "Rode o instalador com   calma.1 E depois\treinicie." in install
    assert "Nota de rodapé." in install and "- Baixe o pacote" in install
    assert sections[("Instalação", "Requisitos")] == "Sistema | Linux"
    everything = "\n".join(sections.values())
    for hidden in ("comentário do revisor", "frase apagada", "....."):
        assert hidden not in everything, hidden
    deep = next(text for path, text in sections.items() if path[-1] == "Fundo")
    assert deep.startswith("Espaços ") and deep.endswith(" fim") and len(deep) < 200


ORG = """\
#+TITLE: Notas do Projeto
#+OPTIONS: toc:nil

Intro com [[https://example.org][um link]] e *negrito* e =código= em /usr/bin/ls.

* TODO [#A] Instalação                                                  :setup:
  :PROPERTIES:
  :ID: 123
  :END:
  SCHEDULED: <2024-01-01 Mon>
Rode o comando abaixo[fn:1].

#+BEGIN_SRC sh
pip install *widget*
#+END_SRC

- item um
- item dois
- item três

| opção | efeito |
|-------+--------|
| -x    | extrai |

** Detalhes
: saída fixa
# um comentário
#+BEGIN_COMMENT
texto escondido
#+END_COMMENT

* COMMENT Rascunho
segredo
** Sub-rascunho
segredo dois
* Fim
[fn:1] A nota.
"""


def test_an_org_file_reads_as_its_export_shows_it_and_cites_each_line(tmp_path: Path) -> None:
    doc = document(load(tmp_path, "notas.org", ORG.encode()))
    assert doc.title == "Notas do Projeto"
    sections = {section.heading_path: section for section in doc.sections}
    intro = sections[("Notas do Projeto",)]
    assert intro.text == "Intro com um link e negrito e código em /usr/bin/ls."
    install = sections[("Instalação",)]
    assert install.text.startswith("Rode o comando abaixo.\n\npip install *widget*\n\n- item um")
    assert "| -x    | extrai |" in install.text and "---" not in install.text
    lines = ORG.splitlines()
    for shown in ("Rode o comando", "pip install", "- item três", "| -x"):
        cited = install.location_at(install.text.index(shown))
        assert cited is not None and cited.unit == "line"
        assert lines[cited.number - 1].lstrip().startswith(shown), shown
    assert sections[("Instalação", "Detalhes")].text == "saída fixa"
    assert sections[("Fim",)].text == "A nota."
    assert sections[("Fim",)].location == Location("line", lines.index("* Fim") + 1)
    everything = "\n".join(section.text for section in doc.sections)
    for hidden in ("segredo", "escondido", ":ID:", "SCHEDULED", "#+", "comentário", "toc:nil"):
        assert hidden not in everything, hidden


def test_an_org_file_of_drawer_lines_without_an_end_reads_in_one_pass(tmp_path: Path) -> None:
    text = "* Título\n" + ":palavra:\n" * 60_000
    doc = document(load(tmp_path, "gaveta.org", text.encode()))
    assert doc.sections[0].text.count(":palavra:") == 60_000


def bomb_zip(name: str, parts: dict[str, str | bytes]) -> bytes:
    """`parts` plus member `name` declaring 200 MiB of spaces (about 200 KiB compressed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for other, data in parts.items():
            archive.writestr(other, data)
        with archive.open(name, "w", force_zip64=True) as member:
            block = b" " * (1 << 20)
            for _ in range(200):
                member.write(block)
    return buffer.getvalue()


def test_zip_bombs_and_damaged_office_files_are_skipped_with_their_reason(
        tmp_path: Path) -> None:
    docx_bomb = bomb_zip("word/document.xml", {"[Content_Types].xml": "<Types/>"})
    assert len(docx_bomb) < 1 << 20
    assert "bomba zip" in reason(load(tmp_path, "bomba.docx", docx_bomb))
    odt_bomb = bomb_zip("content.xml", {"mimetype": "application/vnd.oasis.opendocument.text"})
    assert "bomba zip" in reason(load(tmp_path, "bomba.odt", odt_bomb))
    crowded = zipped({f"x/{n}": b"" for n in range(20_000)})
    assert "bomba zip" in reason(load(tmp_path, "muitos.docx", crowded))
    whole = make_docx(para("Texto."))
    assert "DOCX danificado" in reason(load(tmp_path, "cortado.docx", whole[: len(whole) // 2]))
    assert "ODT danificado" in reason(load(tmp_path, "vazio.odt", zipped({"mimetype": "x"})))


def test_a_docx_passage_cites_the_page_word_last_showed_it_on(tmp_path: Path) -> None:
    mark = "<w:r><w:lastRenderedPageBreak/></w:r>"
    body = (para("Guia", "Heading1") + para("Primeira página.")
            + f"<w:p>{mark}<w:r><w:t>Começa na segunda</w:t></w:r>{mark}"
              "<w:r><w:t> e termina na terceira.</w:t></w:r></w:p>"
            + para("Já na terceira."))
    doc = document(load(tmp_path, "paginas.docx", make_docx(body)))
    (section,) = doc.sections
    assert section.location == Location("page", 1)
    for text, page in (("Primeira", 1), ("Começa", 2), ("Já na", 3)):
        assert section.location_at(section.text.index(text)) == Location("page", page), text
    unpaged = document(load(tmp_path, "sem.docx", make_docx(para("T", "Heading1") + para("x"))))
    assert unpaged.sections[0].location is None


def test_an_odt_passage_cites_the_page_of_its_last_layout(tmp_path: Path) -> None:
    styles = ('<office:automatic-styles><style:style style:name="P1" style:family="paragraph"'
              ' style:parent-style-name="Quebra"/></office:automatic-styles>')
    body = ('<text:h text:outline-level="1">Guia</text:h><text:p>Primeira página.</text:p>'
            "<text:soft-page-break/><text:p>Segunda página.</text:p>"
            '<text:p text:style-name="P1">Terceira, depois de uma quebra manual.</text:p>')
    named = ('<office:styles><style:style style:name="Quebra" style:family="paragraph">'
             '<style:paragraph-properties fo:break-before="page"/></style:style>'
             "</office:styles>")
    data = make_odt(body, automatic_styles=styles, named_styles=named)
    (section,) = document(load(tmp_path, "paginas.odt", data)).sections
    for text, page in (("Primeira", 1), ("Segunda", 2), ("Terceira", 3)):
        assert section.location_at(section.text.index(text)) == Location("page", page), text
    unpaged = document(load(tmp_path, "sem.odt", make_odt("<text:p>Texto.</text:p>")))
    assert unpaged.sections[0].location is None
