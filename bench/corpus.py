"""Deterministic, realistic Markdown corpora for the benchmark.

Pages look like product docs: a title, `##`/`###` sections of a few paragraphs in mixed
Portuguese/English technical prose, bullet lists and fenced code with identifiers. Words are
drawn from a Zipf-like distribution over a lexicon of real and synthetic words, so the term
statistics (a few very common words, a long tail) resemble real documentation.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np


def _words(text: str) -> list[str]:
    return text.split()


COMMON = _words(
    "o a de que e do da em um para é com não uma os no se na por mais as dos como mas foi ao "
    "ele das tem à seu sua ou ser quando muito há nos já está também só pelo pela até isso "
    "the of and to in is for on with that this by from are be as at or it an can use your"
)
TECHNICAL = _words(
    "instalação configuração servidor cliente cache índice documento arquivo pasta modelo "
    "consulta resposta pergunta trecho token contexto parâmetro variável ambiente comando "
    "terminal requisição rede porta endereço timeout erro aviso registro log versão pacote "
    "dependência biblioteca módulo função classe método objeto lista dicionário texto busca "
    "ranking relevância vetor matriz embedding prompt streaming sessão usuário permissão "
    "segurança chave certificado proxy banco tabela coluna linha consulta índice backup "
    "install configure server client request response error warning release package "
    "dependency library module function class method object string buffer thread process "
    "memory disk network socket timeout retry queue worker scheduler deploy container image "
    "cluster node replica shard partition schema migration rollback snapshot checkpoint"
)
SYLLABLES = _words(
    "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo fu ga ge gi go gu la le li lo "
    "lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti "
    "to tu va ve vi vo vu xa xe za ze zi ção ções mente ável ível agem dade"
)
SYNTHETIC_WORDS = 20_000
SECTIONS_PER_PAGE = (14, 26)
WORDS_PER_SECTION = (150, 330)
CODE_LANGUAGES = ("python", "bash", "json", "yaml")


def lexicon(rng: random.Random) -> list[str]:
    synthetic = {
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        for _ in range(SYNTHETIC_WORDS)
    }
    return COMMON + TECHNICAL + sorted(synthetic - set(COMMON) - set(TECHNICAL))


def write_corpus(root: Path, pages: int, seed: int = 7) -> list[Path]:
    """Write `pages` Markdown files under `root` (in sub-folders); return their paths."""
    rng = random.Random(seed)
    words = lexicon(rng)
    weights = 1.0 / np.arange(1, len(words) + 1) ** 1.07
    draw = np.random.default_rng(seed)
    cumulative = np.cumsum(weights / weights.sum())
    paths = []
    for number in range(pages):
        path = root / f"area{number % 20:02d}" / f"pagina-{number:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_page(number, words, cumulative, rng, draw), encoding="utf-8")
        paths.append(path)
    return paths


def _page(
    number: int,
    words: list[str],
    cumulative: np.ndarray,
    rng: random.Random,
    draw: np.random.Generator,
) -> str:
    topic = rng.choice(TECHNICAL)
    parts = [f"# {topic.capitalize()} {number}\n"]
    sizes = [rng.randint(*WORDS_PER_SECTION) for _ in range(rng.randint(*SECTIONS_PER_PAGE))]
    ids = np.searchsorted(cumulative, draw.random(sum(sizes))).clip(max=len(words) - 1)
    drawn = [words[i] for i in ids.tolist()]
    offset = 0
    for section, size in enumerate(sizes):
        picked = drawn[offset : offset + size]
        offset += size
        level = "###" if section and rng.random() < 0.3 else "##"
        title = " ".join(rng.sample(TECHNICAL, 2)).capitalize()
        parts.append(f"\n{level} {title} {section}\n")
        parts.append(_prose(picked, rng))
        if rng.random() < 0.35:
            parts.append(_code(picked, rng))
        if rng.random() < 0.25:
            parts.append("".join(f"- {w} {rng.choice(TECHNICAL)}\n" for w in picked[:4]) + "\n")
    return "".join(parts)


def _prose(picked: list[str], rng: random.Random) -> str:
    sentences, start = [], 0
    while start < len(picked):
        size = rng.randint(8, 22)
        sentences.append(" ".join(picked[start : start + size]).capitalize() + ".")
        start += size
    paragraphs, start = [], 0
    while start < len(sentences):
        size = rng.randint(2, 5)
        paragraphs.append(" ".join(sentences[start : start + size]))
        start += size
    return "\n" + "\n\n".join(paragraphs) + "\n"


def _code(picked: list[str], rng: random.Random) -> str:
    name = "_".join(picked[:2]) or "valor"
    language = rng.choice(CODE_LANGUAGES)
    body = {
        "python": f"def {name}(timeout=30):\n    return client.{picked[-1]}(timeout)\n",
        "bash": f"docai --{picked[0]} {rng.randint(1, 9999)} | grep {picked[-1]}\n",
        "json": f'{{"{name}": {rng.randint(1, 512)}, "enabled": true}}\n',
        "yaml": f"{name}:\n  retries: {rng.randint(1, 9)}\n  mode: {picked[-1]}\n",
    }[language]
    return f"\n```{language}\n{body}```\n"


def queries(count: int, seed: int = 11) -> list[str]:
    """Varied questions: common and rare words, headings, identifiers, unknown words."""
    rng = random.Random(seed)
    words = lexicon(random.Random(7))
    asks = []
    for number in range(count):
        kind = number % 5
        if kind == 0:
            asks.append(f"como configurar {rng.choice(TECHNICAL)} {rng.choice(TECHNICAL)}?")
        elif kind == 1:
            asks.append(" ".join(rng.sample(words[:400], rng.randint(2, 5))))
        elif kind == 2:
            asks.append(" ".join(rng.sample(words, rng.randint(1, 3))))
        elif kind == 3:
            asks.append(f"erro {rng.choice(words)}_{rng.choice(words)} no {rng.choice(TECHNICAL)}")
        else:
            asks.append(f"o que é {rng.choice(words[200:])} e zzq{number}?")
    return asks
