"""Questions of more than one line, typed as people already type them.

- `\"\"\"` opens a block and `\"\"\"` closes it (as in `ollama run`): Enter inside an open block
  starts a new line; the quotes are not part of the question. Piped input reads blocks the
  same way, so a file of questions can hold a long one.
- Alt-Enter (Esc then Enter) inserts a line break anywhere.
- Pasted text stays one question: the terminal's bracketed paste hands prompt_toolkit the
  whole text at once, line breaks included, and Enter then sends it whole.
- Ctrl-X Ctrl-E opens $VISUAL/$EDITOR on what is typed (prompt_toolkit's own binding).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

QUOTES = '"""'


def in_open_block(text: str) -> bool:
    """Whether `text` opened a block with `\"\"\"` and has not closed it yet."""
    stripped = text.strip()
    if not stripped.startswith(QUOTES):
        return False
    return not (len(stripped) >= 2 * len(QUOTES) and stripped.endswith(QUOTES))


def unwrap_block(text: str) -> str:
    """The question inside `\"\"\" … \"\"\"` (the text itself when it is no block)."""
    stripped = text.strip()
    if not stripped.startswith(QUOTES):
        return text
    inner = stripped[len(QUOTES):]
    if inner.endswith(QUOTES):
        inner = inner[: -len(QUOTES)]
    return inner.strip("\n").rstrip()


def join_blocks(lines: Iterable[str]) -> Iterator[str]:
    """Piped input as questions: one per non-blank line, a `\"\"\"` block as one (its blank
    lines kept); a block still open at the end of the input is asked as it stands."""
    block: list[str] | None = None
    for line in lines:
        if block is None:
            if not line.strip():
                continue
            if in_open_block(line):
                block = [line.rstrip("\n")]
                continue
            yield unwrap_block(line.rstrip("\n"))
            continue
        block.append(line.rstrip("\n"))
        if line.rstrip().endswith(QUOTES):
            yield unwrap_block("\n".join(block))
            block = None
    if block is not None:
        yield unwrap_block("\n".join(block))


def block_bindings() -> KeyBindings:
    """Enter inside an open block and Alt-Enter anywhere insert a line break."""
    bindings = KeyBindings()

    @Condition
    def block_open() -> bool:
        from prompt_toolkit.application import get_app

        return in_open_block(get_app().current_buffer.text)

    @bindings.add("enter", filter=block_open)
    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.newline(copy_margin=False)

    return bindings
