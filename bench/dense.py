"""Dense retrieval in the bench (issue 14): what the embedding model costs a user.

Five measurements, each phase in its own process (`bench.dense_phase`), with the real
bundled model (multilingual E5, in-process):
- a warm question on the largest generated corpus (100k chunks), its lexical candidates
  already embedded, in a store filled as if the whole collection were: the whole retrieval
  (lexical ranking, the question's embedding, re-ranking, fusion), target < 50 ms; and the
  store's size on disk, the time a new process takes to open it, the memory it adds;
- a cold question at 10k chunks: the extra time of a question none of whose candidates has
  vectors, and how many windows it embedded;
- the background pass (`embed_pending`) over a fixed slice: windows and chunks per second,
  and what a whole pass would take at 10k and 100k chunks;
- the first answer with an empty store: from opening the index to the first question's
  passages, beside the whole pass it does not wait for;
- a warm question at 100k chunks once the collection is marked complete, the whole
  collection ranked by the model too (target < 50 ms), and the first question of such a
  process (which stacks every window's vector).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WARM_TARGET_MS = 50.0
HOUR = 3600.0


@dataclass(frozen=True)
class Corpus:
    name: str  # "10k", "100k"
    docs: Path
    cache: Path


def measure(small: Corpus, large: Corpus) -> dict[str, Any]:
    """The dense phases: cold question, first answer and pass on `small`; warm on `large`."""
    _say(f"[densa {small.name}] primeira resposta e perguntas frias (modelo real)…")
    cold = _phase("cold", small)
    _say(f"[densa {small.name}] passada em segundo plano (até um minuto)…")
    background = _phase("pass", small)
    _say(f"[densa {large.name}] repositório de vetores como se tudo estivesse embutido…")
    fill = _phase("fill", large)
    _say(f"[densa {large.name}] perguntas quentes…")
    warm = _phase("warm", large)
    _say(f"[densa {large.name}] passada ao abrir uma coleção já embutida…")
    resume = _phase("resume", large)
    _say(f"[densa {large.name}] perguntas quentes com a coleção inteira…")
    whole = _phase("whole", large)
    rate = background["windows_per_s"]
    estimates = {
        small.name: cold["windows"] / rate if rate else None,
        large.name: fill["windows"] / rate if rate else None,
    }
    return {
        "small": small.name, "large": large.name, "cold": cold, "pass": background,
        "fill": fill, "warm": warm, "resume": resume, "whole": whole,
        "full_pass_s": estimates,
    }


def lines(result: dict[str, Any]) -> list[str]:
    """The printed summary, one line per measurement, the target where there is one."""
    small, large = result["small"], result["large"]
    cold, background, fill, warm, resume, whole = (
        result[k] for k in ("cold", "pass", "fill", "warm", "resume", "whole"))
    met = "ok" if warm["p50_ms"] < WARM_TARGET_MS else "ACIMA"
    estimates = result["full_pass_s"]
    out = [
        f"densa, pergunta quente ({large}, {warm['chunks']} trechos, candidatas já embutidas): "
        f"p50 {warm['p50_ms']:.1f} / p95 {warm['p95_ms']:.1f} ms ({met} < {WARM_TARGET_MS:g} ms) "
        f"em {warm['samples']} buscas; só lexical p50 {warm['lexical_p50_ms']:.1f} ms",
        f"densa, pergunta quente com a coleção inteira ({large}, marcada completa): "
        f"p50 {whole['p50_ms']:.1f} / p95 {whole['p95_ms']:.1f} ms "
        f"({'ok' if whole['p50_ms'] < WARM_TARGET_MS else 'ACIMA'} < "
        f"{WARM_TARGET_MS:g} ms) em {whole['samples']} buscas; a primeira pergunta do processo "
        f"{whole['first_s']:.1f} s (+{whole['resident_mb']:.0f} MB: os vetores de todas as "
        "janelas)",
        f"densa, repositório de vetores ({large}, {warm['stored_windows']} janelas): "
        f"{warm['store_bytes'] / 1e6:.0f} MB em disco; abrir num processo novo "
        f"{warm['open_store_s']:.2f} s; +{warm['store_resident_mb']:.0f} MB residentes "
        f"(o modelo +{warm['model_resident_mb']:.0f} MB, as perguntas "
        f"+{warm['questions_resident_mb']:.0f} MB)",
        f"densa, pergunta fria ({small}): +{_seconds(cold['extra_p50_s'])} "
        f"(mediana de {len(cold['extra_s'])} perguntas; janelas embutidas: "
        f"{', '.join(map(str, cold['embedded']))}); antes de a coleção estar embutida, "
        f"como os comandos perguntam: +{_seconds(cold['bounded_extra_p50_s'])} (janelas: "
        f"{', '.join(map(str, cold['bounded_embedded']))})",
        f"densa, passada em segundo plano: {background['windows_per_s']:.1f} janelas/s, "
        f"{background['chunks_per_s']:.2f} trechos/s ({background['chunks_done']} de "
        f"{background['slice_chunks']} trechos em {background['seconds']:.0f} s); "
        f"passada completa estimada: {small} {_hours(estimates[small])}, "
        f"{large} {_hours(estimates[large])}",
        f"densa, passada ao abrir ({large}, tudo embutido): {resume['walk_s']:.2f} s "
        f"(+{resume['walk_resident_mb']:.0f} MB) percorrendo as janelas, a primeira vez; "
        f"{resume['marked_s']:.2f} s (+{resume['marked_resident_mb']:.0f} MB) com a coleção "
        "marcada completa",
        f"densa, primeira resposta ({small}, sem vetores): {cold['first_answer_s']:.1f} s da "
        f"abertura do índice às passagens ({cold['first_windows']} janelas embutidas), "
        f"sem esperar a passada completa (~{_hours(estimates[small])})",
    ]
    if warm["embedded_while_timed"]:
        out.append(f"  AVISO: {warm['embedded_while_timed']} janelas embutidas durante as "
                   "perguntas quentes (não estavam todas no repositório)")
    if not (resume["walk_complete"] and resume["marked_complete"]):
        out.append("  AVISO: a passada ao abrir embutiu janelas (o repositório não estava cheio)")
    if not whole["complete"]:
        out.append("  AVISO: a coleção não estava marcada completa na fase da coleção inteira")
    for phase in (cold, fill, warm, resume, whole):
        if phase["cache_status"]:
            out.append(f"  AVISO: a fase densa não usou o índice salvo: {phase['cache_status']}")
    return out


def _phase(phase: str, corpus: Corpus) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.dense_phase", phase, str(corpus.docs), str(corpus.cache)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: a fase densa {phase} falhou:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def _hours(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds / HOUR:.1f} h" if seconds >= HOUR else f"{seconds / 60:.0f} min"


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
