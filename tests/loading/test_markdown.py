"""Markdown files as docai sees them: titles, heading paths and body text, via load_file."""

from __future__ import annotations

from pathlib import Path

from docai.loading import load_file
from docai.records import Document


def load_md(tmp_path: Path, text: str, name: str = "guia.md") -> Document:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = load_file(tmp_path, path)
    assert result.skipped is None, result.skipped
    assert result.document is not None
    return result.document


def by_path(document: Document) -> dict[tuple[str, ...], str]:
    return {section.heading_path: section.text for section in document.sections}


def test_nested_headings_give_heading_paths(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Instalação\n\nComece aqui.\n\n## Com pip\n\nUse pip.\n\n### Linux\n\nNo Linux.\n\n"
        "## Com conda\n\nUse conda.\n\n# Uso\n\nRode docai.\n",
    )
    assert [s.heading_path for s in doc.sections] == [
        ("Instalação",),
        ("Instalação", "Com pip"),
        ("Instalação", "Com pip", "Linux"),
        ("Instalação", "Com conda"),
        ("Uso",),
    ]
    assert by_path(doc)[("Instalação", "Com conda")] == "Use conda."


def test_skipped_heading_level_nests_under_last_shallower_heading(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "# A\n\n### C\n\ntexto c\n\n## B\n\ntexto b\n")
    assert by_path(doc) == {("A", "C"): "texto c", ("A", "B"): "texto b"}


def test_heading_without_body_stays_in_childrens_path(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "# Guia\n\n## Configuração\n\n### Porta\n\nUse 8080.\n")
    assert [s.heading_path for s in doc.sections] == [("Guia", "Configuração", "Porta")]


def test_title_is_first_h1_and_intro_text_is_under_title(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "Texto antes.\n\n## Seção\n\nCorpo.\n\n# Título Real\n\nFim.\n")
    assert doc.title == "Título Real"
    assert doc.sections[0].heading_path == ("Título Real",)
    assert doc.sections[0].text == "Texto antes."


def test_title_falls_back_to_file_stem(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "## Só subtítulo\n\nCorpo.\n", name="notas-de-uso.md")
    assert doc.title == "notas-de-uso"


def test_fenced_and_indented_code_keep_lines_and_hash_is_not_a_heading(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Código\n\n```bash\npip install docai\n# comentário, não título\n  docai --help\n```\n\n"
        "Texto.\n\n    indentado = 1\n    if x:\n        y()\n",
    )
    assert [s.heading_path for s in doc.sections] == [("Código",)]
    text = doc.sections[0].text
    assert "pip install docai\n# comentário, não título\n  docai --help" in text
    assert "indentado = 1\nif x:\n    y()" in text
    assert "```" not in text


def test_table_rows_keep_cells(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Opções\n\n| Opção | Padrão |\n|---|---|\n| `--top-k` | 3 |\n"
        "| `--num-ctx` | 8192<br>tokens |\n",
    )
    assert doc.sections[0].text == "Opção | Padrão\n--top-k | 3\n--num-ctx | 8192 tokens"


def test_lists_one_item_per_line_nested_and_ordered(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Passos\n\n- primeiro\n- segundo\n  - detalhe a\n  - detalhe b\n- terceiro\n\n"
        "1. instale\n2. rode\n",
    )
    assert doc.sections[0].text == (
        "- primeiro\n- segundo\n  - detalhe a\n  - detalhe b\n- terceiro\n\n1. instale\n2. rode"
    )


def test_text_after_a_deeply_nested_list_is_kept(tmp_path: Path) -> None:
    deep = "".join("  " * level + f"- nível {level}\n" for level in range(15))
    text = f"# Guia\n\n{deep}\nDepois da lista: as vicunhas.\n\n## Próxima\n\nFim.\n"
    doc = load_md(tmp_path, text)
    assert "  " * 14 + "- nível 14" in by_path(doc)[("Guia",)]
    assert "Depois da lista: as vicunhas." in by_path(doc)[("Guia",)]
    assert by_path(doc)[("Guia", "Próxima")] == "Fim."


def test_hostile_nesting_keeps_every_word_as_plain_text(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "> " * 200 + "citação funda\n\ndepois dela\n")
    text = "\n".join(section.text for section in doc.sections)
    assert "citação funda" in text and "depois dela" in text


def test_inline_code_links_images_and_entities_keep_their_text(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Links\n\nUse `num_ctx` e veja [a documentação](https://exemplo.com/docs) "
        "![diagrama do fluxo](fluxo.png) &amp; &eacute; *fim*.\n",
    )
    text = doc.sections[0].text
    assert text == "Use num_ctx e veja a documentação diagrama do fluxo & é fim."
    assert "https://" not in text


def test_front_matter_gives_title_and_is_not_body_text(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        '---\nlayout: page\ntitle: "Guia Rápido"\ntags: [a, b]\n---\nIntro.\n\n# Primeiro\n\nX.\n',
    )
    assert doc.title == "Guia Rápido"
    assert doc.sections[0].heading_path == ("Guia Rápido",)
    assert doc.sections[0].text == "Intro."
    assert all("layout" not in s.text and "tags" not in s.text for s in doc.sections)


def test_unclosed_front_matter_is_ordinary_text(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "---\ntitle: solto\n\nCorpo do texto.\n", name="solto.md")
    assert doc.title == "solto"
    assert "Corpo do texto." in doc.sections[0].text


def test_html_blocks_inside_markdown_become_text(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        '<h1 align="center">Projeto</h1>\n\n<div class="nota">\n<b>Atenção</b>: use&nbsp;UTF-8'
        "<script>alert(1)</script>\n</div>\n\n<!-- comentário -->\n\n"
        "Texto normal <kbd>Ctrl</kbd>.\n",
    )
    assert doc.title == "Projeto"
    assert doc.sections[0].heading_path == ("Projeto",)
    text = doc.sections[0].text
    assert "Atenção: use UTF-8" in text
    assert "Texto normal Ctrl." in text
    assert "alert" not in text and "comentário" not in text and "<" not in text


def test_uppercase_suffix_is_markdown(tmp_path: Path) -> None:
    doc = load_md(tmp_path, "# Leia-me\n\n- item\n", name="README.MD")
    assert doc.title == "Leia-me"
    assert doc.sections[0].text == "- item"
    assert doc.source == "README.MD"


def test_mkdocs_admonitions_and_tabs_are_prose_not_code(tmp_path: Path) -> None:
    # MkDocs bodies are indented by four spaces, which plain CommonMark reads as code.
    doc = load_md(
        tmp_path,
        '# Install\n\n!!! warning "Mind the environment"\n    Consider [pipx](#pipx) instead.\n\n'
        '=== "macOS"\n    === "GUI installer"\n        1. Download the **.pkg** file.\n\n'
        "=== \"Windows\"\n    Run the `.msi` file.\n\n??? tip\n    Collapsed by default.\n\n"
        "```text\n!!! note\n    fenced code stays as written\n```\n",
    )
    text = by_path(doc)[("Install",)]
    assert "Mind the environment\n\nConsider pipx instead." in text
    assert "macOS\n\nGUI installer\n\n1. Download the .pkg file." in text
    assert "Windows\n\nRun the .msi file." in text
    assert "Tip\n\nCollapsed by default." in text
    assert "!!! note\n    fenced code stays as written" in text
    assert "[pipx]" not in text and "**" not in text


def test_myst_notes_are_prose_and_tables_of_contents_are_dropped(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "(usage)=\n\n# Usage\n\n```{note}\nSee {doc}`the basics <basics>` for *more*.\n```\n\n"
        "```{toctree}\n:maxdepth: 2\n\nbasics\nfaq\n```\n\n:::{tip} Line length\n:class: x\n"
        "Use 88 columns.\n:::\n\n```{code-block} toml\nline-length = 88\n```\n",
    )
    text = by_path(doc)[("Usage",)]
    assert "Note\n\nSee the basics for more." in text  # a role shows its title
    assert "Line length\n\nUse 88 columns." in text
    assert "line-length = 88" in text  # code stays code
    assert "maxdepth" not in text and "faq" not in text and "(usage)=" not in text
    assert "{doc}" not in text and ":class:" not in text


def test_heading_attribute_lists_are_not_part_of_the_heading(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# History\n\n## 1.8.0 - 2023-12-11 ## {: #hatch-v1.8.0 }\n\nFixed.\n\n"
        "## Options {#options .wide}\n\nSome.\n\n## Sets {like this}\n\nKept.\n",
    )
    assert [s.heading_path for s in doc.sections] == [
        ("History", "1.8.0 - 2023-12-11"),
        ("History", "Options"),
        ("History", "Sets {like this}"),
    ]


def test_myst_markup_goes_but_placeholders_in_code_stay(tmp_path: Path) -> None:
    doc = load_md(
        tmp_path,
        "# Context\n\nUse `{env_name}` or ``{home}``, run `hatch run {args}`; see {ref}`fmt`.\n\n"
        "```{deprecated} 3.1\nUse the new option.\n```\nThe next paragraph.\n\n"
        "```{note}\n---\nclass: tip\n---\nYAML options are not text.\n```\n\n"
        "```{contents}\n:local:\n:backlinks: none\n```\n\n"
        '=== ":octicons-file-code-16: pyproject.toml"\n    Set the table.\n',
    )
    text = by_path(doc)[("Context",)]
    assert "Use {env_name} or {home}, run hatch run {args}; see fmt." in text
    assert "Deprecated since version 3.1\n\nUse the new option.\n\nThe next paragraph." in text
    assert "Note\n\nYAML options are not text." in text
    assert "class: tip" not in text and ":local:" not in text and "backlinks" not in text
    assert "pyproject.toml\n\nSet the table." in text and "octicons" not in text


MKDOCS_EXTRAS = """\
# Guide

(intro-label)=
Intro text with a note[^n1] marker.

[^n1]: The footnote text.

/// note | Before you start
    type: warning

Read the **manual** first.
///

/// tab | pip
Run `pip install x`.
///

--8<-- "CHANGELOG.md"

{: .source-link }

```{eval-rst}
.. click:example::

    @click.command()
    def hello():
        click.echo('Hello World!')

See :func:`click.echo` for **more**.
```
"""


def test_pymdownx_blocks_snippets_footnotes_and_eval_rst_read_as_rendered(
        tmp_path: Path) -> None:
    text = "\n".join(load_md(tmp_path, MKDOCS_EXTRAS).sections[0].text.split("\n"))
    for shown in ("Intro text with a note marker.", "The footnote text.", "Before you start",
                  "Read the manual first.", "pip\n\nRun pip install x.",
                  "@click.command()\ndef hello():\n    click.echo('Hello World!')",
                  "See click.echo for more."):
        assert shown in text, shown
    for hidden in ("///", "type: warning", "--8<--", "{:", "[^", "(intro-label)", ".. ",
                   ":func:", "**", "eval-rst"):
        assert hidden not in text, hidden
