"""`docai config`: the settings a person sets once, their values and where each came from.

Read-only: it names the config file (and whether it exists) so the user knows where to
write, and shows the winner of option > environment > file > default for each key.
"""

from __future__ import annotations

from docai import messages
from docai.cli.options.config import KEYS, Sourced
from docai.cli.terminal_text import one_line
from docai.redaction import redact_url
from docai.settings import config_file


def run(values: dict[str, Sourced]) -> int:
    path = config_file()
    state = messages.CONFIG_FILE_READ if path.is_file() else messages.CONFIG_FILE_ABSENT
    print(messages.CONFIG_FILE_LINE.format(path=one_line(str(path)), state=state))
    width = max(len(key) for key in KEYS) + 2
    shown = {key: _shown(key, values[key]) for key in KEYS}
    value_width = max(len(text) for text in shown.values()) + 2
    for key in KEYS:
        origin = values[key].origin.describe()
        print(f"  {key:<{width}}{shown[key]:<{value_width}}{one_line(origin)}")
    if not path.is_file():
        print(messages.CONFIG_EXAMPLE.format(path=one_line(str(path))))
    return 0


def _shown(key: str, sourced: Sourced) -> str:
    value = sourced.value
    if key == "embedder" and value is None:
        return messages.CONFIG_BUNDLED_EMBEDDER
    if value is None:
        return messages.CONFIG_NONE
    if isinstance(value, bool):
        return "on" if value else "off"
    if key == "system":  # instructions may run long: their start, on one line
        text = one_line(" ".join(str(value).split()))
        return repr(text if len(text) <= 40 else text[:39] + "…")
    if key in ("server", "store"):
        return one_line(redact_url(str(value)))
    if isinstance(value, tuple):  # several docs folders
        return one_line(", ".join(str(item) for item in value))
    return one_line(str(value))
