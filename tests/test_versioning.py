"""Cache keys change with the code that makes the cached data, not only with its number."""

from __future__ import annotations

import importlib.resources
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import docai.text
from docai.chunking import CHUNKER_VERSION
from docai.loading import PARSER_VERSION
from docai.text import wordlists
from docai.text.analysis import ANALYZER_VERSION
from docai.versioning import code_version


def _import(name: str, path: Path) -> ModuleType:
    location = path / "__init__.py" if path.is_dir() else path
    spec = importlib.util.spec_from_file_location(name, location)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder for throwaway modules; whatever they register is forgotten afterwards."""
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_an_edit_to_a_module_changes_the_version_without_a_new_number(scratch: Path) -> None:
    code = scratch / "analysis_under_test.py"
    code.write_text("STEM = 'snowball'\n", encoding="utf-8")
    module = _import("analysis_under_test", code)
    before = code_version("12", [module], packages=["PyStemmer"])
    assert code_version("12", [module], packages=["PyStemmer"]) == before  # stable
    code.write_text("STEM = 'porter'\n", encoding="utf-8")
    assert code_version("12", [module], packages=["PyStemmer"]) != before
    assert code_version("13", [module], packages=["PyStemmer"]) != code_version(
        "12", [module], packages=["PyStemmer"]
    )


def test_a_package_covers_every_module_in_it_even_a_new_one(scratch: Path) -> None:
    package = scratch / "stage_under_test"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "parse.py").write_text("x = 1\n", encoding="utf-8")
    module = _import("stage_under_test", package)
    before = code_version("5", [module])
    (package / "parse.py").write_text("x = 2\n", encoding="utf-8")
    edited = code_version("5", [module])
    assert edited != before
    (package / "chunk.py").write_text("", encoding="utf-8")
    assert code_version("5", [module]) != edited


def test_an_edit_to_a_data_file_changes_the_version(scratch: Path) -> None:
    code = scratch / "words_under_test.py"
    code.write_text("", encoding="utf-8")
    module = _import("words_under_test", code)
    words = scratch / "words.txt"
    words.write_text("a\nthe\n", encoding="utf-8")
    before = code_version("12", [module], data=[words])
    words.write_text("a\nthe\nof\n", encoding="utf-8")
    assert code_version("12", [module], data=[words]) != before


def test_a_library_upgrade_changes_the_version(scratch: Path) -> None:
    code = scratch / "parser_under_test.py"
    code.write_text("x = 1\n", encoding="utf-8")
    module = _import("parser_under_test", code)
    with_lxml = code_version("5", [module], packages=["lxml"])
    assert code_version("5", [module], packages=["a-package-that-is-not-installed"]) != with_lxml


def test_the_cache_keys_carry_a_number_and_a_hash() -> None:
    for version in (ANALYZER_VERSION, PARSER_VERSION, CHUNKER_VERSION):
        number, digest = version.split("-")
        assert number.isdigit() and len(digest) == 12


def test_the_analyzer_version_covers_the_text_package_and_every_word_list() -> None:
    covered = code_version("12", [docai.text], wordlists.WORD_LISTS, ["PyStemmer"])
    assert covered == ANALYZER_VERSION
    data = importlib.resources.files("docai") / "data"
    # Every data file is a word list the version hashes, or a vocabulary (refusal only).
    assert {file.name for file in wordlists.WORD_LISTS + wordlists.VOCABULARIES} == {
        file.name for file in data.iterdir() if file.is_file()
    }


def test_the_chunker_version_covers_the_chunker_and_its_token_counting() -> None:
    import docai.chunking
    import docai.text.tokens

    assert code_version("1", [docai.chunking, docai.text.tokens]) == CHUNKER_VERSION
