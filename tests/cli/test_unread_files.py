"""Every file of a docs folder is either read or listed with its reason, as a user sees it
through `docai index`, `docai status` and `docai search`: README-like files without a
suffix, DOCX, ODT and Org read; images, unknown formats, hidden and Sphinx build folders
and what the rules leave out listed; a folder of only other formats names every one."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from docai import messages
from tests.loading.office_makers import docx_paragraph, make_docx, make_odt
from tests.support.docai_cli import InProcessDocai
from tests.support.sample_docs import write_docs

NO_SERVER = "http://127.0.0.1:9"


def sources(docai: InProcessDocai, docs: Path, term: str) -> list[str]:
    code, out, err = docai("search", "--json", "--dense", "off", "--docs", docs, term)
    assert code == 0, err
    return [hit["source"] for hit in json.loads(out)["results"]]


def test_every_file_is_read_or_listed_with_its_reason(
        tmp_path: Path, docai: InProcessDocai) -> None:
    docai.use_env(tmp_path, NO_SERVER)
    docs = write_docs(tmp_path / "docs", {
        "README": "O widget guarda o termo alfazeta.\n",
        "NEWS.Debian": "Mudança do pacote: o termo betazeta.\n",
        "ANNOUNCE": "Anúncio: o termo etazeta.\n",
        "plano.org": "#+TITLE: Plano\n* Metas\nO termo gamazeta.\n",
        "Makefile": "all:\n\techo x\n",
        "desenho.pages": "x",
        "fotos/logo.png": "x",
        ".github/ajuda.md": "# Ajuda\n\nescondido\n",
        "html/_static/tema.css": "body {}\n",
        ".docaiignore": "rascunho.md\n",
        "rascunho.md": "# Rascunho\n\nnão lido\n",
    })
    (docs / "guia.docx").write_bytes(make_docx(
        docx_paragraph("Instalação", "Heading1") + docx_paragraph("O termo deltazeta.")))
    (docs / "notas.odt").write_bytes(make_odt(
        '<text:h text:outline-level="1">Uso</text:h><text:p>O termo epsilonzeta.</text:p>'))
    (docs / "manual.txt.gz").write_bytes(gzip.compress(b"O termo zetazeta.\n"))
    (docs / "changelog.Debian.amd64.gz").write_bytes(gzip.compress(b"O termo thetazeta.\n"))
    outside = write_docs(tmp_path / "fora", {"lista": "pacotes\n"})
    (docs / "lista").symlink_to(outside / "lista")  # as Debian's build-essential/list

    code, out, err = docai("index", "--docs", docs, "--dense", "off")
    assert code == 0, err
    assert "8 arquivo(s) indexado(s)" in out
    assert ("6 arquivo(s) ou pasta(s) não lidos (2 sem extensão; 1 de cada: .pages, .png; "
            "1 pasta(s) oculta(s); 1 pasta(s) de HTML do Sphinx (_sources, _static))") in out
    for term, source in (("alfazeta", "README"), ("betazeta", "NEWS.Debian"),
                         ("gamazeta", "plano.org"), ("deltazeta", "guia.docx"),
                         ("epsilonzeta", "notas.odt"), ("zetazeta", "manual.txt.gz"),
                         ("etazeta", "ANNOUNCE"), ("thetazeta", "changelog.Debian.amd64.gz")):
        assert sources(docai, docs, term) == [source], term

    code, out, err = docai("status", "--json", "--docs", docs, "--dense", "off")
    assert code == 0, err
    status = json.loads(out)
    assert status["by_format"] == {"docx": 1, "odt": 1, "org": 1, "txt": 5}
    unread = {item["source"]: item["reason"] for item in status["unread"]}
    assert unread == {
        ".docaiignore": messages.DISCOVER_UNREAD_RULES_FILE,
        ".github/": messages.DISCOVER_UNREAD_HIDDEN,
        "Makefile": messages.DISCOVER_UNREAD_NO_SUFFIX,
        "desenho.pages": messages.LOAD_SKIP_UNSUPPORTED.format(suffix=".pages"),
        "fotos/logo.png": messages.LOAD_SKIP_UNSUPPORTED.format(suffix=".png"),
        "lista": messages.DISCOVER_UNREAD_NO_SUFFIX,
        "html/_static/": messages.DISCOVER_UNREAD_BUILD,
        "rascunho.md": messages.DISCOVER_UNREAD_RULE,
    }
    text = docai("status", "--docs", docs, "--dense", "off").stdout
    assert "Não lidos (8)" in text
    assert "  fotos/logo.png: formato .png, que o docai não lê" in text
    assert "  .github/: pasta oculta" in text


def test_a_folder_of_only_other_formats_names_every_one(
        tmp_path: Path, docai: InProcessDocai) -> None:
    docai.use_env(tmp_path, NO_SERVER)
    names = ["a.key", "b.key", "c.numbers", "d.xcf", "e.psd", "f.sketch", "g.fig", "Makefile",
             "h.vsdx", "i.vsdx", "j.vsdx"]
    docs = write_docs(tmp_path / "docs", {name: "x" for name in names})
    code, _, err = docai("index", "--docs", docs, "--dense", "off")
    assert code == 2
    assert ("só arquivos de outros tipos: 3 .vsdx, 2 .key; "
            "1 de cada: .fig, .numbers, .psd, .sketch, .xcf, sem extensão") in err


def test_each_folders_rules_file_is_named_as_such_when_several_are_read_as_one(
        tmp_path: Path, docai: InProcessDocai) -> None:
    docai.use_env(tmp_path, NO_SERVER)
    first = write_docs(tmp_path / "um", {"guia.md": "# Guia\n\nO termo alfazeta.\n",
                                         ".docaiignore": "rascunho.md\n"})
    second = write_docs(tmp_path / "dois", {"uso.md": "# Uso\n\nO termo betazeta.\n",
                                            "logo.png": "x"})
    where = ("--docs", first, "--docs", second, "--dense", "off")
    assert docai("index", *where).returncode == 0
    code, out, err = docai("status", "--json", *where)
    assert code == 0, err
    unread = {item["source"]: item["reason"] for item in json.loads(out)["unread"]}
    assert unread == {"um/.docaiignore": messages.DISCOVER_UNREAD_RULES_FILE,
                      "dois/logo.png": messages.LOAD_SKIP_UNSUPPORTED.format(suffix=".png")}


def test_index_names_the_commonest_kinds_of_unread_file_and_status_each_one(
        tmp_path: Path, docai: InProcessDocai) -> None:
    docai.use_env(tmp_path, NO_SERVER)
    others = {f"dados/{n}.tipo{n:02}": "x" for n in range(14)}
    others.update({f"fotos/{n}.png": "x" for n in range(3)})
    docs = write_docs(tmp_path / "docs", {"guia.md": "# Guia\n\nO termo alfazeta.\n", **others})
    code, out, err = docai("index", "--docs", docs, "--dense", "off")
    assert code == 0, err
    line = next(line for line in out.splitlines() if "não lidos" in line)
    assert line.startswith("17 arquivo(s) ou pasta(s) não lidos (3 .png; 1 de cada: .tipo00, ")
    assert ".tipo10 e mais 3 formato(s))" in line and ".tipo11" not in line
    code, out, err = docai("status", "--json", "--docs", docs, "--dense", "off")
    assert sorted(item["source"] for item in json.loads(out)["unread"]) == sorted(others)
