"""Chunking: size limit, nothing lost, natural boundaries, overlap, header line, settings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docai import messages
from docai.chunking import chunk_document, header_line, plan_section
from docai.errors import SettingsError
from docai.loading import discover, load_file
from docai.records import Document, Location, Section
from docai.settings import ChunkSettings
from docai.text.tokens import count_tokens

WORDS = [
    "configuração", "índice", "ação", "você", "não", "docai", "BM25", "os.path.join",
    "日本語のテキスト", "中文没有空格的句子很长很长", "😀", "👩‍💻", "naïve", "über",
    "a" * 300, "Ж" * 120, "x=1;", "`code`", "<|endoftext|>", "1234567890" * 5,
]
SEPARATORS = [" ", " ", " ", "  \t ", "\n", "\n\n", "\n\n\n  ", ". ", "! ", "? ", "。", "\u3000"]

words = st.sampled_from(WORDS) | st.text(min_size=1, max_size=12)
texts = st.lists(st.tuples(words, st.sampled_from(SEPARATORS)), max_size=120).map(
    lambda pairs: "".join(word + sep for word, sep in pairs)
)
chunk_settings = st.integers(min_value=16, max_value=160).flatmap(
    lambda size: st.builds(
        ChunkSettings,
        max_tokens=st.just(size),
        overlap_tokens=st.integers(min_value=0, max_value=size - 1),
    )
)
headings = st.lists(st.text(max_size=30) | st.sampled_from(["Install", "Guia rápido"]),
                    max_size=4).map(tuple)


def squash(text: str) -> str:
    return "".join(text.split())


def document(*sections: Section, title: str = "Guide") -> Document:
    return Document(source="guide.md", title=title, sections=sections)


@settings(max_examples=80, deadline=None)
@given(text=texts, heading=headings, chunking=chunk_settings)
def test_chunks_fit_cover_the_text_in_order_and_are_reproducible(text, heading, chunking):
    doc = document(Section(heading, text), Section(("Next",), "tail words"))
    chunks = chunk_document(doc, chunking)

    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert chunk.tokens == count_tokens(chunk.text)
        assert chunk.tokens <= chunking.max_tokens
        assert chunk.source == "guide.md"
    assert chunk_document(doc, chunking) == chunks

    # Exactly: chunk i is header + text[overlap_start:end]; the new parts [start:end) are
    # in order and, whitespace aside, concatenate back to the whole section.
    header = header_line(doc, doc.sections[0], chunking)
    spans = plan_section(text, header, chunking)
    own = [c for c in chunks if c.heading_path == heading][: len(spans)]
    assert [c.text for c in own] == [header + text[s.overlap_start : s.end] for s in spans]
    assert squash("".join(text[s.start : s.end] for s in spans)) == squash(text)
    for previous, span in zip(spans, spans[1:], strict=False):
        assert previous.end <= span.start
        assert span.overlap_start == span.start or (
            previous.start <= span.overlap_start < previous.end
        )
        if span.overlap_start < span.start:  # the repeated tail is the previous chunk's end
            repeated = text[span.overlap_start : previous.end]
            assert count_tokens(repeated) <= chunking.overlap_tokens
    if not text.strip():
        assert spans == ()


def test_whitespace_only_sections_produce_no_chunks():
    doc = document(Section(("Empty",), "  \n\t\n "), Section(("Real",), "Use `make run`."))
    chunks = chunk_document(doc, ChunkSettings())
    assert [c.text for c in chunks] == ["Real\nUse `make run`."]
    assert chunk_document(document(Section((), "")), ChunkSettings()) == ()


def test_chunk_text_starts_with_heading_path_or_title():
    doc = document(
        Section(("Install", "With pip"), "Run pip install."),
        Section((), "Intro text."),
        title="docai guide",
    )
    texts = [c.text for c in chunk_document(doc, ChunkSettings())]
    assert texts == ["Install > With pip\nRun pip install.", "docai guide\nIntro text."]


def test_absurd_heading_is_truncated_to_half_the_budget():
    heading = tuple(f"Level {i} of a very deep and verbose heading" for i in range(60))
    doc = document(Section(heading, "The body of the section survives. " * 40))
    chunks = chunk_document(doc, ChunkSettings(max_tokens=64, overlap_tokens=8))
    first_line = chunks[0].text.split("\n", 1)[0]
    assert first_line.startswith("Level 0 of a very deep")
    assert count_tokens(first_line + "\n") <= 32
    assert all(c.tokens <= 64 and c.text.startswith(first_line + "\n") for c in chunks)
    assert "survives" in chunks[0].text


def long_markdown_section() -> str:
    paragraphs = []
    for n in range(40):
        paragraphs.append(
            f"Paragraph {n} explains step {n} of the setup. It mentions the option "
            f"--num-ctx and the cache folder. Finally it ends with fact number {n}!"
        )
        if n % 10 == 5:
            code = "\n".join(f"    value_{n}_{i} = os.path.join(root, 'f{i}')" for i in range(30))
            paragraphs.append(f"```python\n{code}\n```")
    return "\n\n".join(paragraphs)


def test_long_section_ends_chunks_at_sentence_or_line_boundaries():
    text = long_markdown_section()
    chunking = ChunkSettings(128, 24)
    chunks = chunk_document(document(Section(("Setup",), text)), chunking)
    assert len(chunks) > 5
    for span in plan_section(text, "Setup\n", chunking)[:-1]:
        assert text[span.end - 1] in ".!" or text[span.end] == "\n", text[span.end - 30 :]
    for n in range(40):
        assert sum(f"fact number {n}!" in c.text for c in chunks) >= 1


def test_code_blocks_are_split_between_lines():
    code = "\n".join(f"result_{i} = compute(alpha, beta, gamma, {i})" for i in range(120))
    chunks = chunk_document(document(Section(("Code",), code)), ChunkSettings(100, 0))
    lines = set(code.split("\n"))
    for chunk in chunks:
        assert set(chunk.text.split("\n")[1:]) <= lines


def test_consecutive_chunks_share_a_tail_of_whole_sentences():
    text = long_markdown_section()
    chunking = ChunkSettings(max_tokens=128, overlap_tokens=40)
    chunks = chunk_document(document(Section(("Setup",), text)), chunking)
    header = "Setup\n"
    for previous, chunk in zip(chunks, chunks[1:], strict=False):
        body = chunk.text.removeprefix(header)
        shared = next(
            (n for n in range(len(body), 0, -1) if previous.text.endswith(body[:n])), 0
        )
        assert shared > 0, (previous.text[-80:], body[:80])
        assert count_tokens(body[:shared]) <= 40
        tail = body[:shared]
        assert tail[0].isupper() or tail.startswith(("```", "value_", "    ")), tail


def test_overlap_zero_repeats_nothing():
    text = long_markdown_section()
    chunks = chunk_document(document(Section(("S",), text)), ChunkSettings(128, 0))
    bodies = [c.text.split("\n", 1)[1] for c in chunks]
    assert len(squash("".join(bodies))) == len(squash(text))


def test_giant_word_and_cjk_run_are_cut_at_character_boundaries():
    text = "x" * 5000 + " " + "日本語のテキストと絵文字😀" * 300
    chunks = chunk_document(document(Section(("Big",), text)), ChunkSettings(50, 10))
    assert all(c.tokens <= 50 for c in chunks)
    assert all("\ufffd" not in c.text for c in chunks)
    assert "😀" in chunks[-1].text


def test_smaller_limit_gives_more_chunks():
    text = long_markdown_section()
    doc = document(Section(("S",), text))
    assert len(chunk_document(doc, ChunkSettings(64, 8))) > len(
        chunk_document(doc, ChunkSettings(512, 48))
    )


@pytest.mark.parametrize("size", [0, -5, 15, 8193, 1_000_000])
def test_bad_chunk_size_is_refused_in_portuguese(size):
    with pytest.raises(SettingsError) as error:
        ChunkSettings(max_tokens=size, overlap_tokens=0)
    assert str(error.value) == messages.BAD_CHUNK_SIZE.format(
        value=size, minimum=16, maximum=8192)
    assert str(size) in str(error.value)


@pytest.mark.parametrize("overlap", [-1, 100, 150])
def test_bad_overlap_is_refused_in_portuguese(overlap):
    with pytest.raises(SettingsError) as error:
        ChunkSettings(max_tokens=100, overlap_tokens=overlap)
    assert "sobreposição" in str(error.value)
    assert str(overlap) in str(error.value) and "99" in str(error.value)


def test_the_shipped_user_guide_chunks_within_limits():
    root = Path(__file__).resolve().parents[1] / "resources" / "docs"
    loaded = [load_file(root, path) for path in discover(root)]
    assert all(result.document is not None for result in loaded)
    chunking = ChunkSettings(max_tokens=96, overlap_tokens=16)
    for result in loaded:
        chunks = chunk_document(result.document, chunking)
        assert chunks, result.document.source
        assert all(c.tokens <= 96 for c in chunks)
    assert {p.suffix for p in discover(root)} >= {".md", ".html"}


def test_chunks_of_a_section_with_a_turn_per_page_cite_the_page_they_start_on() -> None:
    """A PDF without an outline is one section of many pages: each chunk still says where
    to look, the page its text starts on."""
    pages = [f"Page {n} " + " ".join(f"word{n}x{i}" for i in range(120)) for n in range(1, 301)]
    text, turns = "", []
    for number, page in enumerate(pages, 1):
        if text:
            turns.append((len(text) + 1, Location("page", number)))
            text += "\n"
        text += page
    section = Section(("Manual",), text, Location("page", 1), tuple(turns))
    document = Document("manual.pdf", "Manual", (section,))
    chunks = chunk_document(document, ChunkSettings())
    assert len(chunks) > 100
    for chunk in chunks:
        body = chunk.text.split("\n", 1)[1]
        first = re.search(r"word(\d+)x(\d+)|Page (\d+)", body)
        assert first is not None
        page = int(first.group(1) or first.group(3))
        assert chunk.location == Location("page", page), body[:60]
