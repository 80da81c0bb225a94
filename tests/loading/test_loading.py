"""Finding docs files and surviving every kind of bad file, with real files in tmp_path."""

from __future__ import annotations

import codecs
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docai.errors import DocsFolderError
from docai.loading import SUPPORTED_SUFFIXES, discover, load_file
from docai.loading.load import LoadResult

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def write(root: Path, relative: str, content: str | bytes = "# T\n\ntexto\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def relative(root: Path, paths: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def skipped_reason(result: LoadResult) -> str:
    assert result.document is None
    assert result.skipped is not None
    return result.skipped.reason


# --- discover -------------------------------------------------------------------------------


def test_supported_suffixes_contract() -> None:
    expected = {".md", ".markdown", ".mdx", ".html", ".htm", ".xhtml", ".txt", ".rst", ".rest",
                ".rst.txt", ".rest.txt", ".adoc", ".asciidoc", ".ipynb", ".pdf", ".epub",
                ".man", ".info", ".gz", ".docx", ".odt", ".org"}
    assert expected == set(SUPPORTED_SUFFIXES)
    for by_pattern in (".1", ".8", ".3pm", ".1ssl", ".info-2"):  # man sections, info parts
        assert by_pattern in SUPPORTED_SUFFIXES
    for other in (".png", "", ".", ".tar"):
        assert other not in SUPPORTED_SUFFIXES


def test_discover_lists_supported_files_in_stable_relative_order(tmp_path: Path) -> None:
    for name in ("z.md", "b/c.txt", "a.md", "b/a.HTML", "b/d/e.markdown", "a/x.htm",
                 "README.MD", "img.png", "notes.pages", "b/script.py"):
        write(tmp_path, name)
    found = discover(tmp_path)
    assert relative(tmp_path, found) == [
        "README.MD", "a.md", "a/x.htm", "b/a.HTML", "b/c.txt", "b/d/e.markdown", "z.md",
    ]
    assert all(path.is_relative_to(tmp_path) for path in found)
    assert discover(tmp_path) == found


def test_discover_skips_hidden_and_dependency_folders(tmp_path: Path) -> None:
    write(tmp_path, "docs/guia.md")
    write(tmp_path, ".git/description.md")
    write(tmp_path, "docs/.obsidian/cache.md")
    write(tmp_path, "node_modules/pkg/README.md")
    write(tmp_path, "html/_sources/guia.rst.txt")  # a Sphinx build's copy of the sources
    write(tmp_path, "html/_static/jquery.txt")
    assert relative(tmp_path, discover(tmp_path)) == ["docs/guia.md"]


def test_discover_does_not_follow_symlink_loops(tmp_path: Path) -> None:
    write(tmp_path, "a/guia.md")
    write(tmp_path, "a/b/detalhe.md")
    (tmp_path / "a" / "b" / "volta").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "a" / "eu").symlink_to(tmp_path / "a", target_is_directory=True)
    assert relative(tmp_path, discover(tmp_path)) == ["a/b/detalhe.md", "a/guia.md"]


def test_folder_linked_twice_is_listed_once_under_its_real_name(tmp_path: Path) -> None:
    write(tmp_path, "real/guia.md")
    (tmp_path / "atalho").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "zz-atalho").symlink_to(tmp_path / "real", target_is_directory=True)
    assert relative(tmp_path, discover(tmp_path)) == ["real/guia.md"]


def test_discover_follows_links_to_folders_outside_root_when_asked(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(tmp_path, "shared/comum.md")
    docs.mkdir()
    (docs / "compartilhado").symlink_to(tmp_path / "shared", target_is_directory=True)
    assert relative(docs, discover(docs, follow_links=True)) == ["compartilhado/comum.md"]


def test_missing_root_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DocsFolderError, match="não existe.*--docs"):
        discover(tmp_path / "nada")


def test_file_as_root_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DocsFolderError, match="não é uma pasta"):
        discover(write(tmp_path, "guia.md"))


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root reads any folder")
def test_unreadable_root_raises_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "trancada"
    root.mkdir(mode=0o000)
    try:
        with pytest.raises(DocsFolderError, match="não consigo ler a pasta"):
            discover(root)
    finally:
        root.chmod(0o755)


# --- load_file: good files ------------------------------------------------------------------


def test_nested_sources_are_relative_with_forward_slashes(tmp_path: Path) -> None:
    write(tmp_path, "guias/instalação/linux.md", "# Linux\n\napt install\n")
    [path] = discover(tmp_path)
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.source == "guias/instalação/linux.md"
    assert result.notices == ()


def test_text_file_is_one_section_titled_by_stem(tmp_path: Path) -> None:
    path = write(tmp_path, "leia-me.txt", "\n\nPrimeira linha\r\n\r\nSegunda linha\r\n")
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.title == "leia-me"
    assert [(s.heading_path, s.text) for s in result.document.sections] == [
        (("leia-me",), "Primeira linha\n\nSegunda linha")
    ]


# --- load_file: encodings -------------------------------------------------------------------


def test_cp1252_file_is_decoded_with_a_notice(tmp_path: Path) -> None:
    path = write(tmp_path, "antigo.md", "# Instalação\n\nAção “rápida” – café €\n".encode("cp1252"))
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.title == "Instalação"
    assert result.document.sections[0].text == "Ação “rápida” – café €"
    [notice] = result.notices
    assert notice.source == "antigo.md"
    assert "cp1252" in notice.message and "UTF-8" in notice.message


@pytest.mark.parametrize(
    ("codec", "meta"),
    [("koi8-r", '<meta http-equiv="Content-Type" content="text/html; charset=KOI8-R">'),
     ("shift_jis", '<meta charset="Shift_JIS">')],
)
def test_an_html_page_is_read_in_the_charset_it_declares(
    tmp_path: Path, codec: str, meta: str
) -> None:
    words = {"koi8-r": "Медведь спит зимой", "shift_jis": "熊は冬に眠る"}[codec]
    page = f"<html><head>{meta}<title>T</title></head><body><p>{words}</p></body></html>"
    path = write(tmp_path, "pagina.html", page.encode(codec))
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.sections[0].text == words
    [notice] = result.notices
    assert codec in notice.message.lower()


def test_a_markdown_file_quoting_a_meta_charset_is_not_read_in_it(tmp_path: Path) -> None:
    text = '# Página\n\n```html\n<meta charset="koi8-r">\n```\n\nAção e café.\n'
    path = write(tmp_path, "pagina.md", text.encode("cp1252"))
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert "Ação e café." in result.document.sections[0].text


def test_terminal_escape_sequences_are_not_kept(tmp_path: Path) -> None:
    path = write(tmp_path, "saida.md", "# Saída\n\nErro em \x1b[31mvermelho\x1b[0m aqui.\n")
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.sections[0].text == "Erro em vermelho aqui."


def test_bytes_undefined_in_cp1252_fall_back_to_latin1(tmp_path: Path) -> None:
    path = write(tmp_path, "velho.txt", b"caf\xe9 \x81 fim")
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.sections[0].text == "café \x81 fim"
    assert "Latin-1" in result.notices[0].message


def test_utf8_bom_is_removed_without_notice(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.md", codecs.BOM_UTF8 + "# Título\n\nçã\n".encode())
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.title == "Título"
    assert result.document.sections[0].text == "çã"
    assert result.notices == ()


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_decoded(tmp_path: Path, codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    path = write(tmp_path, "win.md", bom + "# Título\r\n\r\nAção\r\n".encode(codec))
    result = load_file(tmp_path, path)
    assert result.document is not None
    assert result.document.title == "Título"
    assert result.document.sections[0].text == "Ação"
    assert "UTF-16" in result.notices[0].message


# --- load_file: bad files are skipped with a reason, never raised ---------------------------


def test_binary_content_behind_doc_extension_is_skipped(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    result = load_file(tmp_path, write(tmp_path, "imagem.md", png))
    assert "binário" in skipped_reason(result)


def test_control_characters_without_nul_are_binary(tmp_path: Path) -> None:
    result = load_file(tmp_path, write(tmp_path, "lixo.txt", b"\x01\x02\x03\x04abc\x05\x06" * 50))
    assert "binário" in skipped_reason(result)


@pytest.mark.parametrize("content", ["", "   \n\t\n  ", "\ufeff\n"])
def test_empty_and_whitespace_only_files_are_skipped_as_empty(tmp_path: Path, content: str) -> None:
    result = load_file(tmp_path, write(tmp_path, "vazio.md", content))
    assert "vazio" in skipped_reason(result)
    assert result.skipped is not None and result.skipped.source == "vazio.md"


def test_front_matter_only_file_has_no_text(tmp_path: Path) -> None:
    result = load_file(tmp_path, write(tmp_path, "meta.md", "---\ntitle: Só meta\n---\n"))
    assert "nenhum texto" in skipped_reason(result)


def test_folder_named_like_a_doc_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pasta.md").mkdir()
    assert "não é um arquivo comum" in skipped_reason(load_file(tmp_path, tmp_path / "pasta.md"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_named_pipe_is_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cano.md")
    assert "não é um arquivo comum" in skipped_reason(load_file(tmp_path, tmp_path / "cano.md"))


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root reads files with mode 000")
def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "secreto.md")
    path.chmod(0o000)
    try:
        assert "sem permissão" in skipped_reason(load_file(tmp_path, path))
    finally:
        path.chmod(0o644)


def test_broken_symlink_is_discovered_and_skipped_naming_its_target(tmp_path: Path) -> None:
    (tmp_path / "link.md").symlink_to(tmp_path / "sumido.md")
    [path] = discover(tmp_path)
    reason = skipped_reason(load_file(tmp_path, path))
    assert "link simbólico quebrado" in reason and "sumido.md" in reason


def test_file_deleted_after_discover_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "fugaz.md")
    [path] = discover(tmp_path)
    path.unlink()
    assert "sumiu" in skipped_reason(load_file(tmp_path, path))


def test_huge_file_is_skipped_naming_size_and_limit(tmp_path: Path) -> None:
    path = tmp_path / "enorme.md"
    with path.open("wb") as handle:
        handle.write(b"# Enorme\n\ntexto\n")
        handle.truncate(50 * 1024 * 1024)  # sparse: instant, and never read
    reason = skipped_reason(load_file(tmp_path, path))
    assert "50,0 MB" in reason and "20,0 MB" in reason


def test_size_limit_is_a_keyword_argument(tmp_path: Path) -> None:
    path = write(tmp_path, "medio.txt", "x" * 3000)
    reason = skipped_reason(load_file(tmp_path, path, max_bytes=2048))
    assert "2,9 KB" in reason and "2,0 KB" in reason
    assert load_file(tmp_path, path, max_bytes=3000).document is not None


def test_unsupported_suffix_is_skipped(tmp_path: Path) -> None:
    reason = skipped_reason(load_file(tmp_path, write(tmp_path, "notas.pages", "Título\n====\n")))
    assert "formato .pages, que o docai não lê" in reason


def test_pathologically_nested_html_is_skipped_not_raised(tmp_path: Path) -> None:
    markup = "<div>" * 5000 + "fundo" + "</div>" * 5000
    result = load_file(tmp_path, write(tmp_path, "fundo.html", markup))
    assert result.document is not None or "aninhada" in skipped_reason(result)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400), suffix=st.sampled_from(sorted(SUPPORTED_SUFFIXES)))
def test_any_bytes_give_a_document_or_a_reason(tmp_path: Path, data: bytes, suffix: str) -> None:
    path = write(tmp_path, "qualquer" + suffix, data)
    result = load_file(tmp_path, path)
    assert (result.document is None) != (result.skipped is None)
    if result.skipped is not None:
        assert result.skipped.reason
