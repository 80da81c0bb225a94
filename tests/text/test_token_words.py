"""The generated list of one-token English words answers exactly as the tokenizer would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docai.text import concepts, wordlists
from docai.text.tokens import get_encoding

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from make_token_words import render, single_token_words  # noqa: E402


def test_the_shipped_list_is_what_the_installed_tokenizer_gives() -> None:
    expected = render(single_token_words(get_encoding()))
    assert wordlists.ENGLISH_SINGLE_TOKENS.read_text(encoding="utf-8") == expected, (
        "the tokenizer changed: run scripts/make_token_words.py"
    )


@pytest.mark.parametrize(
    "word",
    ["put", "ordinary", "browser", "restic", "docstrings", "ionice", "chokes", "emptier",
     "configuração", "x86", "c++", "--verbose", "os.path", "ção", "naïve", "привет", "日本"],
)
def test_a_word_is_one_token_exactly_when_the_tokenizer_says_so(word: str) -> None:
    tokenizer_says = len(get_encoding().encode_ordinary(" " + word)) == 1
    assert concepts._one_token(word) == tokenizer_says


def test_rare_english_words_are_told_from_common_ones_without_loading_the_tokenizer() -> None:
    script = (
        "from docai.text import concepts, tokens\n"
        "assert not concepts.is_rare_english('browser')\n"
        "assert not concepts.is_rare_english('chokes')  # 'choke' is one token\n"
        "assert concepts.is_rare_english('restic')\n"
        "print(tokens.get_encoding.cache_info().currsize)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0", "the tokenizer was loaded"
