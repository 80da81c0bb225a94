"""docai: ask questions about a folder of documentation, answered by a local LLM."""

__version__ = "0.1.0"
