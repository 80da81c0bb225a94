"""What the terminal cleaner removes, and that a stream cut anywhere is cleaned the same."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docai.cli.terminal_text import MAX_STRING, StreamCleaner, json_text, one_line, strip_controls

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_each_kind_of_sequence_goes_whole() -> None:
    cases = {
        "a\x1b[2Jb": "ab",  # CSI: clear screen
        "a\x1b[38;5;196mb\x1b[0m": "ab",
        "a\x1b]0;título\x07b": "ab",  # OSC ended by BEL: window title
        "a\x1b]52;c;ZXZpbA==\x1b\\b": "ab",  # OSC ended by ST: clipboard write
        "a\x1bPq#0;2;0;0;0\x1b\\b": "ab",  # DCS (sixel)
        "a\x1b_apc\x1b\\b\x1b^pm\x9cc\x1bXsos\x07d": "abcd",  # APC, PM, SOS
        "a\x1b7b\x1b(Bc\x1bcd": "abcd",  # single ESC sequences (save cursor, charset, reset)
        "a\x9b31mb\x9d0;t\x9cc": "abc",  # 8-bit CSI and OSC
        "a\x85b\x9fc\x7fd": "abcd",  # C1 controls, DEL
        "a\rb\x08c\x00d\x0b\x0c": "abcd",  # C0 controls
        "linha 1\n\tlinha 2": "linha 1\n\tlinha 2",  # newline and tab stay
        "Olá, 世界 👩‍💻": "Olá, 世界 👩‍💻",
    }
    for raw, shown in cases.items():
        assert strip_controls(raw) == shown, raw


def test_an_unterminated_string_loses_its_introducer_and_shows_the_rest() -> None:
    assert strip_controls("a\x1b]0;sem fim") == "a0;sem fim"
    long_title = "x" * (MAX_STRING + 1)
    assert strip_controls(f"\x1b]0;{long_title}\x07fim") == f"0;{long_title}fim"


def test_a_label_stays_on_one_line_with_its_controls_escaped() -> None:
    assert one_line("a\nb\tc\rd") == r"a\nb\tc\rd"
    assert one_line("nome\x1b[31m.md\x1b") == r"nome.md\x1b"
    assert one_line("ruim\udcffnome") == r"ruim\xffnome"  # a byte of a name that is not UTF-8
    assert one_line("Instalação > Com pip") == "Instalação > Com pip"


def test_json_escapes_what_json_dumps_leaves_raw_and_stays_valid_unicode() -> None:
    value = {"source": "a\x1b]0;t\x07\x9b31m\x7f\udcffb.md\n"}
    text = json_text(value)
    assert CONTROL.findall(text) == []
    text.encode("utf-8")  # strict: a lone surrogate (a byte that is not UTF-8) became U+FFFD
    assert json.loads(text) == {"source": value["source"].replace("\udcff", "\ufffd")}


PIECES = st.sampled_from([
    "\x1b", "[", "]", "P", "_", "^", "X", "\\", "\x07", "\x9c", "\x9b", "\x9d", "0", ";", "2",
    "J", "m", "(", "B", "texto ", "olá", "\n", "\t", "\r", "\x00", "\x7f", "\x85", "x" * 200,
])


@settings(max_examples=400, deadline=None)
@given(
    text=st.lists(PIECES, max_size=30).map("".join),
    cuts=st.lists(st.integers(min_value=0, max_value=6000), max_size=8),
)
def test_a_stream_cut_anywhere_is_cleaned_as_the_whole_text_is(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    cleaner = StreamCleaner()
    shown = "".join(cleaner.feed(text[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))
    shown += cleaner.finish()
    assert shown == strip_controls(text)
    assert CONTROL.findall(shown) == []
