"""Cache keys change with the code that makes the cached data, not only with its number."""

from __future__ import annotations

from pathlib import Path

from docai.loading import PARSER_VERSION
from docai.text.analysis import ANALYZER_VERSION
from docai.versioning import code_version


def test_an_edit_to_the_code_changes_the_version_without_a_new_number(tmp_path: Path) -> None:
    code = tmp_path / "analysis.py"
    code.write_text("STEM = 'snowball'\n", encoding="utf-8")
    before = code_version("12", [code], ["PyStemmer"])
    assert code_version("12", [code], ["PyStemmer"]) == before  # stable across calls
    code.write_text("STEM = 'porter'\n", encoding="utf-8")
    assert code_version("12", [code], ["PyStemmer"]) != before
    assert code_version("13", [code], ["PyStemmer"]) != code_version("12", [code], ["PyStemmer"])


def test_a_library_upgrade_changes_the_version(tmp_path: Path) -> None:
    code = tmp_path / "parser.py"
    code.write_text("x = 1\n", encoding="utf-8")
    with_lxml = code_version("5", [code], ["lxml"])
    assert code_version("5", [code], ["a-package-that-is-not-installed"]) != with_lxml


def test_the_cache_keys_carry_a_number_and_a_hash() -> None:
    for version in (ANALYZER_VERSION, PARSER_VERSION):
        number, digest = version.split("-")
        assert number.isdigit() and len(digest) == 12
