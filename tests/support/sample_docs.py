"""The small documentation folder the answering and CLI tests ask about, and the fake reply.

Two files, four sections: enough for a question to have one clearly right passage
("Com pip"), a neighbour that must not win ("Com pipx"), and a second file to fall back to.
"""

from __future__ import annotations

from pathlib import Path

DOCS = {
    "guide/install.md": (
        "# Instalação\n\n## Com pip\n\nPara instalar o docai, rode `pip install docai` num "
        "ambiente virtual com Python 3.11.\n\n## Com pipx\n\nUse `pipx install docai` para ter "
        "o comando isolado do resto do sistema.\n"
    ),
    "config.md": (
        "# Configuração\n\n## Janela de contexto\n\nA opção --num-ctx define a janela de "
        "contexto pedida ao Ollama. O padrão é 8192 tokens.\n\n## Modelo\n\nA opção --model "
        "escolhe o modelo; o padrão é deepseek-r1.\n"
    ),
}
QUESTION = "Como instalo o docai com pip?"  # answered by guide/install.md > Com pip
REPLY = "Rode pip install docai num ambiente virtual [1]."


def write_docs(root: Path, docs: dict[str, str] = DOCS) -> Path:
    """Write `docs` (relative path -> text) under `root` and return `root`."""
    for name, text in docs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
