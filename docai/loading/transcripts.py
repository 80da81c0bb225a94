"""docai's own transcripts (`/salvar`): the marker that tells them from documentation.

A saved conversation is the model's earlier output. Indexed, it would come back as a
source, and later answers would cite the model to itself. `/salvar` starts every file with
this line, and loading skips any file that starts with it, wherever it was saved.
"""

from __future__ import annotations

TRANSCRIPT_MARKER = "<!-- docai: conversa -->"


def is_transcript(text: str) -> bool:
    """Whether `text` (a file's decoded contents) is a conversation docai saved."""
    return text.lstrip("\ufeff").startswith(TRANSCRIPT_MARKER)
