"""What a docs folder's rules leave out, through `docai index` and `docai search`: the
default rules (`node_modules`), the folder's `.gitignore`, a `.docaiignore` with a
negation, and `DOCAI_GITIGNORE=off`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.docai_cli import InProcessDocai
from tests.support.sample_docs import write_docs

PAGE = "# {title}\n\n## Uso\n\nO termo {term} aparece só nesta página.\n"


def sources(docai: InProcessDocai, docs: Path, term: str, *env: str) -> list[str]:
    code, out, err = docai("search", "--json", "--dense", "off", "--docs", docs, term)
    assert code == 0, err
    return [hit["source"] for hit in json.loads(out)["results"]]


def test_rules_keep_files_out_and_a_negation_brings_a_folder_back(
    tmp_path: Path, docai: InProcessDocai, monkeypatch
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        "rascunhos/ideia.md": PAGE.format(title="Ideia", term="betazeta"),
        "gerado.md": PAGE.format(title="Gerado", term="gamazeta"),
        "node_modules/pacote/README.md": PAGE.format(title="Pacote", term="deltazeta"),
        "vendor/README.md": PAGE.format(title="Vendor", term="epsilonzeta"),
        ".gitignore": "gerado.md\nvendor/\n",
        ".docaiignore": "rascunhos/\n!vendor/\n",
    })
    assert sources(docai, docs, "alfazeta") == ["guia.md"]
    for left_out in ("betazeta", "gamazeta", "deltazeta"):
        assert sources(docai, docs, left_out) == [], left_out
    assert sources(docai, docs, "epsilonzeta") == ["vendor/README.md"]  # brought back
    code, out, err = docai("index", "--docs", docs)
    assert code == 0, err
    assert "3 arquivo(s) ou pasta(s) deixados de fora por regras" in out + err
    monkeypatch.setenv("DOCAI_GITIGNORE", "off")
    assert sources(docai, docs, "gamazeta") == ["gerado.md"]  # .gitignore not applied


def test_status_lists_what_was_indexed_skipped_and_changed_without_changing_anything(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    docs = write_docs(tmp_path / "docs", {
        "guia.md": PAGE.format(title="Guia", term="alfazeta"),
        "api.rst": "API\n===\n\nO termo betazeta.\n",
        "vazio.md": "\n",
        ".docaiignore": "rascunho.md\n",
        "rascunho.md": PAGE.format(title="Rascunho", term="gamazeta"),
    })
    code, out, err = docai("status", "--json", "--docs", docs)
    assert code == 0, err
    assert json.loads(out)["indexed"] is False
    assert docai("index", "--docs", docs).returncode == 0
    (docs / "novo.md").write_text(PAGE.format(title="Novo", term="deltazeta"), encoding="utf-8")
    code, out, err = docai("status", "--json", "--docs", docs)
    assert code == 0, err
    status = json.loads(out)
    assert (status["files"], status["by_format"]) == (2, {"md": 1, "rst": 1})
    assert [item["source"] for item in status["skipped"]] == ["vazio.md"]
    assert status["skipped"][0]["reason"]
    assert status["ignored_by_rules"] == 1
    assert status["changed_since"] == {"new": 1, "changed": 0, "removed": 0}
    assert sources(docai, docs, "deltazeta") == ["novo.md"]  # status changed nothing...
    text = docai("status", "--docs", docs).stdout  # ...and the search read the new file
    assert "Arquivos indexados: 3 (md 2, rst 1)" in text
    assert "A pasta não mudou desde então." in text
    assert "vazio.md:" in text
