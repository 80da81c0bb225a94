"""A UTF-8 file with a stray byte keeps its accented words: only the bad bytes are read as
cp1252. Legacy files, BOMs and an HTML page's declared charset keep their rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from docai.loading import load_file
from docai.retrieval.search_index import open_index
from docai.settings import Settings

PAGE = "# Instalação\n\nConfiguração do serviço: “ação rápida” em São Paulo.\n"


def load_text(path: Path) -> tuple[str, list[str]]:
    result = load_file(path.parent, path)
    assert result.document is not None
    text = "\n".join(section.text for section in result.document.sections)
    return result.document.title + "\n" + text, [notice.message for notice in result.notices]


def test_one_stray_byte_leaves_every_utf8_word_intact(tmp_path: Path) -> None:
    data = PAGE.encode() + b"Pre\xe7o: 10 \x80 (colado de um arquivo antigo)\n"
    path = tmp_path / "guia.md"
    path.write_bytes(data)
    text, notices = load_text(path)
    assert "Instalação" in text and "Configuração do serviço" in text and "São Paulo" in text
    assert "“ação rápida”" in text
    assert "Preço: 10 €" in text  # the stray bytes, read as cp1252
    assert "Ã" not in text  # no mojibake
    [notice] = notices
    assert "2 byte(s) inválido(s)" in notice and "cp1252" in notice


def test_a_truncated_character_is_the_only_thing_repaired(tmp_path: Path) -> None:
    path = tmp_path / "cortado.txt"
    path.write_bytes("ação e ".encode() + "ç".encode()[:1] + " depois: não\n".encode())
    text, notices = load_text(path)
    assert "ação e Ã depois: não" in text
    assert "1 byte(s)" in notices[0]


def test_a_whole_cp1252_file_is_still_read_as_cp1252(tmp_path: Path) -> None:
    path = tmp_path / "antigo.md"
    path.write_bytes(PAGE.encode("cp1252"))
    text, notices = load_text(path)
    assert "Configuração do serviço: “ação rápida” em São Paulo." in text
    assert notices == [notices[0]] and "Windows-1252" in notices[0] and "inválido" not in notices[0]


def test_a_declared_charset_still_wins_over_the_repair(tmp_path: Path) -> None:
    page = '<html><head><meta charset="koi8-r"><title>Т</title></head><body><p>Привет</p>'
    path = tmp_path / "ru.html"
    path.write_bytes(page.encode("koi8-r"))
    text, notices = load_text(path)
    assert "Привет" in text and "KOI8" in notices[0].upper()


def test_clean_utf8_gets_no_notice(tmp_path: Path) -> None:
    path = tmp_path / "limpo.md"
    path.write_bytes(PAGE.encode())
    assert load_text(path)[1] == []


def test_the_accented_words_of_a_repaired_file_can_be_searched(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guia.md").write_bytes(
        "# Instalação\n\nA configuração do serviço fica em /etc/serviço.conf.\n".encode()
        + b"\x93Aspas do Windows\x94 coladas aqui.\n"
    )
    (docs / "outro.md").write_text("# Outro\n\nNada a ver com o assunto.\n", encoding="utf-8")
    index, report = open_index(Settings(docs_dir=docs, cache_dir=tmp_path / "cache"))
    hits = index.search("configuração do serviço", 3)
    assert hits and hits[0].chunk.source == "guia.md"
    assert "configuração do serviço" in hits[0].chunk.text
    assert "“Aspas do Windows”" in hits[0].chunk.text
    assert [notice.source for notice in report.notices] == ["guia.md"]


@pytest.mark.parametrize("charset", ["base64", "rot13", "hex", "unicode_escape", "utf-7"])
def test_a_page_declaring_a_codec_that_is_no_charset_is_read_not_crashed_on(
    tmp_path: Path, charset: str
) -> None:
    page = tmp_path / "pagina.html"
    page.write_bytes(
        f'<html><head><meta charset="{charset}"></head><body><h1>Instala\xe7\xe3o</h1>'
        "<p>Rode pip install \\ud800 docai.</p></body></html>".encode("latin-1")
    )
    result = load_file(tmp_path, page)
    assert result.document is not None
    assert "pip install" in result.document.sections[0].text
    index, _ = open_index(Settings(docs_dir=tmp_path, cache_dir=tmp_path / ".cache"))
    assert index.search("pip install docai", 1)
