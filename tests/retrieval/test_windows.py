"""Chunks cut into embedding windows: each stands alone, fits, and loses no text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docai.retrieval.windows import windows

HEADING = "Guia > Instalação"
PARAGRAPHS = [
    "Instale o pacote com pip install docai.",
    "Depois rode docai na pasta dos documentos. " * 8,
    "A primeira execução monta o índice; as seguintes o reutilizam.",
    "linha um\nlinha dois\nlinha três",
]
CHUNK = HEADING + "\n" + "\n\n".join(PARAGRAPHS)


def words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def test_every_window_starts_with_the_heading_and_fits() -> None:
    found = windows(CHUNK, 200)
    assert len(found) > 2
    assert all(window.startswith(HEADING + "\n") for window in found)
    assert all(len(window) <= 200 for window in found)


def test_no_word_is_lost_and_none_repeats_without_overlap() -> None:
    bodies = [window.split("\n", 1)[1] for window in windows(CHUNK, 200)]
    assert words(" ".join(bodies)) == words(CHUNK.split("\n", 1)[1])


def test_overlap_repeats_the_last_paragraph_of_the_window_before() -> None:
    steps = "\n\n".join(f"Passo {n}: rode o comando {n} e confira a saída." for n in range(10))
    text = HEADING + "\n" + steps
    overlapping = windows(text, 260, overlap=70)
    assert len(overlapping) >= len(windows(text, 260)) > 1
    for before, after in zip(overlapping, overlapping[1:], strict=False):
        tail = before.rsplit("\n\n", 1)[-1].removeprefix(HEADING + "\n")
        assert after.removeprefix(HEADING + "\n").startswith(tail)


def test_a_short_chunk_is_one_window_as_it_is() -> None:
    assert windows("Título\nUm parágrafo só.", 600) == ("Título\nUm parágrafo só.",)
    assert windows("Só um título", 600) == ("Só um título",)


@settings(max_examples=60, deadline=None)
@given(
    heading=st.text(alphabet="abc >", min_size=1, max_size=30).filter(str.strip),
    body=st.text(alphabet="ab .\n", max_size=2000),
    size=st.integers(min_value=40, max_value=700),
    overlap=st.integers(min_value=0, max_value=300),
)
def test_windows_fit_keep_every_word_and_never_change(
    heading: str, body: str, size: int, overlap: int
) -> None:
    text = heading.strip() + "\n" + body
    found = windows(text, size, overlap)
    assert found == windows(text, size, overlap)
    assert all(len(window) <= size for window in found)
    seen = " ".join(window.split("\n", 1)[1] if "\n" in window else "" for window in found)
    assert set(words(body)) <= set(words(seen)) or not body.strip()
