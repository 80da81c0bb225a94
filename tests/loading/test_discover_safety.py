"""What the walk of a docs folder must not follow, and must not pass over without a word:
links leaving the folder, link loops, pipes and sockets, folders named like documents,
folders it cannot read, names that would break a line of output. Real files in tmp_path."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from docai.index.build import build_index
from docai.loading import display_name, load_file, scan
from docai.records import Skipped
from docai.settings import Settings
from tests.support.docai_cli import InProcessDocai

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
SECRET = "senha-do-banco hunter2"


def write(path: Path, text: str = "# Guia\n\nComo instalar o docai.\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(root: Path, files: tuple[Path, ...]) -> list[str]:
    return [path.relative_to(root).as_posix() for path in files]


def reasons(skipped: tuple[Skipped, ...]) -> dict[str, str]:
    return {item.source: item.reason for item in skipped}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the docs, like a home folder: a secret file and a private folder."""
    write(tmp_path / "fora" / "segredo.txt", SECRET)
    write(tmp_path / "fora" / "ssh" / "id_rsa.txt", "-----BEGIN OPENSSH PRIVATE KEY-----")
    return tmp_path / "fora"


@pytest.fixture
def docs(tmp_path: Path, outside: Path) -> Path:
    """Docs with one real page and links out of the folder: to a file, to a folder, and a
    hidden file link."""
    docs = tmp_path / "docs"
    write(docs / "guia.md")
    (docs / "senhas.txt").symlink_to(outside / "segredo.txt")
    (docs / ".oculto.md").symlink_to(outside / "segredo.txt")
    (docs / "chaves").symlink_to(outside / "ssh", target_is_directory=True)
    return docs


# --- links out of the folder ------------------------------------------------------------


def test_links_out_of_the_folder_are_not_followed_and_each_is_reported(
    docs: Path, outside: Path
) -> None:
    found = scan(docs)
    assert names(docs, found.files) == ["guia.md"]
    why = reasons(found.skipped)
    assert set(why) == {".oculto.md", "chaves", "senhas.txt"}
    for reason in why.values():
        assert "--follow-links" in reason and "fora da pasta" in reason
    assert str(outside / "segredo.txt") in why["senhas.txt"]
    assert str(outside / "ssh") in why["chaves"]


def test_follow_links_opts_in_to_what_the_links_point_at(docs: Path) -> None:
    found = scan(docs, follow_links=True)
    assert names(docs, found.files) == [".oculto.md", "chaves/id_rsa.txt", "guia.md", "senhas.txt"]
    assert found.skipped == ()


def test_links_inside_the_folder_keep_working(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs / "manual" / "uso.md")
    write(docs / "versoes" / "v2" / "novidades.md")
    (docs / "atalho.md").symlink_to(docs / "manual" / "uso.md")
    (docs / "relativo.md").symlink_to(Path("manual") / "uso.md")
    (docs / "atual").symlink_to(Path("versoes") / "v2", target_is_directory=True)
    (docs / "manual" / "ultima").symlink_to(docs / "versoes", target_is_directory=True)
    found = scan(docs)
    assert names(docs, found.files) == [
        "atalho.md", "manual/uso.md", "relativo.md", "versoes/v2/novidades.md",
    ]
    # The linked folders are already walked under their real names, and say so.
    assert {item.source for item in found.skipped} == {"atual", "manual/ultima"}
    assert all("já lida" in item.reason for item in found.skipped)


def test_a_docs_folder_reached_through_a_link_reads_its_own_files(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write(real / "guia.md")
    (tmp_path / "atalho").symlink_to(real, target_is_directory=True)
    found = scan(tmp_path / "atalho")
    assert names(tmp_path / "atalho", found.files) == ["guia.md"] and found.skipped == ()


def test_a_link_swapped_in_after_the_walk_is_not_read(tmp_path: Path, outside: Path) -> None:
    docs = tmp_path / "docs"
    page = write(docs / "guia.md")
    [path] = scan(docs).files
    page.unlink()
    page.symlink_to(outside / "segredo.txt")
    result = load_file(docs, path)
    assert result.document is None and result.skipped is not None
    assert "--follow-links" in result.skipped.reason
    assert load_file(docs, path, follow_links=True).document is not None


def test_a_broken_link_is_still_listed_so_its_reason_is_shown(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "quebrado.md").symlink_to(tmp_path / "nao-existe.md")
    found = scan(docs)
    assert names(docs, found.files) == ["quebrado.md"]
    result = load_file(docs, found.files[0])
    assert result.skipped is not None and "quebrado" in result.skipped.reason


def test_the_index_holds_no_text_from_outside_and_the_report_names_each_link(
    docs: Path, tmp_path: Path
) -> None:
    stored, report = build_index(Settings(docs_dir=docs, cache_dir=tmp_path / "cache"))
    texts = " ".join(chunk.text for chunk in stored.chunks)
    assert "hunter2" not in texts and "PRIVATE KEY" not in texts
    assert [chunk.source for chunk in stored.chunks] == ["guia.md"]
    assert {item.source for item in report.skipped} == {".oculto.md", "chaves", "senhas.txt"}


def test_docai_index_shows_the_skipped_link_and_the_fix(
    docai: InProcessDocai, docs: Path, tmp_path: Path
) -> None:
    code, out, err = docai("index", "--docs", str(docs), "--cache-dir", str(tmp_path / "c"))
    shown = out + err
    assert code == 0
    assert "senhas.txt" in shown and "--follow-links" in shown and "hunter2" not in shown


def test_docai_index_with_follow_links_indexes_what_they_point_at(
    docai: InProcessDocai, docs: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    code, out, err = docai("index", "--docs", str(docs), "--cache-dir", str(cache),
                           "--follow-links")
    assert code == 0 and "--follow-links" not in out + err
    stored, report = build_index(Settings(docs_dir=docs, cache_dir=cache, follow_links=True))
    assert report.unchanged == 4 and report.skipped == ()
    assert any("hunter2" in chunk.text for chunk in stored.chunks)


# --- passed over, but never without a word ----------------------------------------------


def test_link_loops_are_reported_and_the_walk_ends(tmp_path: Path) -> None:
    write(tmp_path / "a" / "guia.md")
    (tmp_path / "a" / "volta").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "eu.md").symlink_to(tmp_path / "tu.md")
    (tmp_path / "tu.md").symlink_to(tmp_path / "eu.md")
    found = scan(tmp_path)
    assert names(tmp_path, found.files) == ["a/guia.md"]
    why = reasons(found.skipped)
    assert set(why) == {"a/volta", "eu.md", "tu.md"}
    assert all("ciclo" in reason for reason in why.values())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_named_like_a_doc_is_reported_and_never_opened(tmp_path: Path) -> None:
    write(tmp_path / "guia.md")
    os.mkfifo(tmp_path / "cano.md")
    os.mkfifo(tmp_path / "cano-sem-extensao")
    (tmp_path / "link-do-cano.md").symlink_to(tmp_path / "cano.md")
    found = scan(tmp_path)  # opening either pipe would block this test until its timeout
    assert names(tmp_path, found.files) == ["guia.md"]
    why = reasons(found.skipped)
    assert set(why) == {"cano.md", "link-do-cano.md"}
    assert all("pipe" in reason for reason in why.values())


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_a_socket_named_like_a_doc_is_reported(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.md"))
        found = scan(tmp_path)
    assert found.files == ()
    assert "socket" in reasons(found.skipped)["s.md"]


def test_a_folder_named_like_a_doc_is_walked_and_reported_only_when_empty(tmp_path: Path) -> None:
    write(tmp_path / "cheia.md" / "dentro.md")
    (tmp_path / "vazia.md").mkdir()
    write(tmp_path / "so-imagens.html" / "logo.png", "png")
    found = scan(tmp_path)
    assert names(tmp_path, found.files) == ["cheia.md/dentro.md"]
    why = reasons(found.skipped)
    assert set(why) == {"so-imagens.html", "vazia.md"}
    assert "é uma pasta" in why["vazia.md"] and ".md" in why["vazia.md"]


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root reads any folder")
def test_an_unreadable_sub_folder_is_reported(tmp_path: Path) -> None:
    write(tmp_path / "guia.md")
    locked = tmp_path / "trancada"
    write(locked / "interno.md")
    locked.chmod(0o000)
    try:
        found = scan(tmp_path)
    finally:
        locked.chmod(0o755)
    assert names(tmp_path, found.files) == ["guia.md"]
    assert "chmod" in reasons(found.skipped)["trancada"]


def test_a_sub_folder_that_cannot_be_opened_is_reported(tmp_path: Path) -> None:
    """A path longer than the system allows (PATH_MAX) cannot be opened by any user."""
    write(tmp_path / "guia.md")
    fd = os.open(tmp_path, os.O_RDONLY)
    depth = 0
    try:
        while depth * 201 < 4200:  # each level adds a 200-byte name and a '/'
            os.mkdir("p" * 200, dir_fd=fd)
            inner = os.open("p" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd, depth = inner, depth + 1
    finally:
        os.close(fd)
    found = scan(tmp_path)
    assert names(tmp_path, found.files) == ["guia.md"]
    [skipped] = found.skipped
    assert skipped.source.count("/") < depth and "não consegui ler a pasta" in skipped.reason


def test_the_walk_and_its_reports_come_in_the_same_order_every_time(docs: Path) -> None:
    for name in ("z", "b", "m", "a"):
        (docs / f"{name}-fora.md").symlink_to(docs.parent / "fora" / "segredo.txt")
        write(docs / name / "pagina.md")
    first = scan(docs)
    assert [item.source for item in first.skipped] == sorted(item.source for item in first.skipped)
    assert scan(docs) == first


# --- names that would break a line of output --------------------------------------------


def test_a_newline_in_a_name_is_kept_and_shown_escaped(tmp_path: Path) -> None:
    write(tmp_path / "linha\nnova.md")
    write(tmp_path / "tela\x1b[2J.md")
    found = scan(tmp_path)
    sources = [load_file(tmp_path, path).document for path in found.files]
    assert [doc.source for doc in sources if doc] == ["linha\nnova.md", "tela\x1b[2J.md"]
    assert display_name("linha\nnova.md") == "linha\\nnova.md"
    assert display_name("tela\x1b[2J.md") == "tela\\x1b[2J.md"
    assert display_name("a\\nb.md") == "a\\\\nb.md"  # a real backslash never reads as an escape
    assert display_name("guia/instalação.md") == "guia/instalação.md"


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="names must be UTF-8 there")
def test_a_name_that_is_not_utf8_is_shown_as_its_bytes(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"ruim\xffnome.md")).write_text("# x\n\nolá\n", encoding="utf-8")
    [path] = scan(tmp_path).files
    assert display_name(path.name) == "ruim\\xffnome.md"


def test_a_link_target_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    write(tmp_path / "fora\nlinha" / "x.md")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pasta").symlink_to(tmp_path / "fora\nlinha", target_is_directory=True)
    [skipped] = scan(docs).skipped
    assert "\n" not in skipped.reason and "fora\\nlinha" in skipped.reason
