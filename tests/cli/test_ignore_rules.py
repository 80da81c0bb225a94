"""What a docs folder's rules leave out, through `docai index` and `docai search`: the
default rules (`node_modules`), the folder's `.gitignore`, a `.docaiignore` with a
negation, and `DOCAI_GITIGNORE=off`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.docai_cli import InProcessDocai

PAGE = "# {title}\n\n## Uso\n\nO termo {term} aparece só nesta página.\n"


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def sources(docai: InProcessDocai, docs: Path, term: str, *env: str) -> list[str]:
    code, out, err = docai("search", "--json", "--dense", "off", "--docs", docs, term)
    assert code == 0, err
    return [hit["source"] for hit in json.loads(out)["results"]]


def test_rules_keep_files_out_and_a_negation_brings_a_folder_back(
    tmp_path: Path, docai: InProcessDocai, monkeypatch
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    docs = write(tmp_path / "docs", {
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
