"""An EPUB passage is cited by its chapter and the section it sits in, as `docai search`
shows it (`livro.epub > 2. Rede > 2.1. Proxy`), not by the chapter alone: a book's
chapters run for pages, and the section is where a reader finds the words."""

from __future__ import annotations

import json
from pathlib import Path

from tests.loading.epub_maker import make_epub
from tests.support.docai_cli import InProcessDocai


def test_an_epub_passage_names_its_chapter_and_section(
        tmp_path: Path, docai: InProcessDocai) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    docs = tmp_path / "docs"
    docs.mkdir()
    filler = "<p>" + "Texto comum do capítulo sobre outras coisas. " * 40 + "</p>"
    (docs / "livro.epub").write_bytes(make_epub("Livro", [
        ("c1.xhtml", f"<h1>1. Instalação</h1>{filler}"),
        ("c2.xhtml", f"<h1>2. Rede</h1>{filler}<h2>2.1. Proxy</h2>{filler}"
                     "<h3>2.1.1. Variáveis</h3><p>Defina alfazeta_proxy antes de baixar.</p>"),
    ]))
    code, out, err = docai("search", "--json", "--dense", "off", "--docs", docs, "alfazeta_proxy")
    assert code == 0, err
    best = json.loads(out)["results"][0]
    assert best["source"] == "livro.epub"
    assert best["heading"] == "2. Rede > 2.1. Proxy > 2.1.1. Variáveis"
