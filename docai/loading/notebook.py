"""Jupyter notebooks (.ipynb) -> sections, cell by cell.

What is read: Markdown cells through the Markdown parser (their headings make the heading
path for the cells after them), code cells as code, and each code cell's text output
(stream output, `text/plain` results, error names) cut to a few lines; raw cells as text.
What is dropped: images and every other rich output (HTML tables, widgets, JavaScript:
megabytes of base64 or markup that are not the notebook's words), metadata, widget state.
Every section is cited by its cell (`analise.ipynb célula 7`, counting from 1).
The file is JSON (nbformat 4, and version 3's worksheets); it is read with `json` alone,
so reading notebooks needs no extra package.
"""

from __future__ import annotations

import json
from typing import Any

from docai import messages
from docai.loading.markdown import markdown_parser, parse_markdown_events
from docai.loading.outline import BLOCK_SEPARATOR, Block, Heading
from docai.loading.parsed import Origin, Parsed, UnusableFile
from docai.records import Location, Section

# An output longer than this many lines is cut (a training log, a printed data frame).
MAX_OUTPUT_LINES = 8
MAX_OUTPUT_CHARS = 1_000


def parse_notebook(data: bytes, origin: Origin) -> Parsed:
    try:
        notebook = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise UnusableFile(messages.LOAD_SKIP_NOTEBOOK_BROKEN.format(
            reason=type(error).__name__)) from error
    cells = _cells(notebook)
    if cells is None:
        raise UnusableFile(messages.LOAD_SKIP_NOTEBOOK_BROKEN.format(reason="sem 'cells'"))
    events: list[Heading | Block] = []
    markdown = markdown_parser()
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        location = Location("cell", number)
        kind = cell.get("cell_type")
        source = _text(cell.get("source", cell.get("input", "")))
        if kind == "markdown":
            events.extend(_relocated(parse_markdown_events(source, markdown), location))
        elif kind == "code":
            if source.strip():
                events.append(Block(source, location))
            output = _outputs(cell.get("outputs"))
            if output:
                events.append(Block(output, location))
        elif kind in ("raw", "heading") and source.strip():
            level = cell.get("level")
            if kind == "heading" and isinstance(level, int):
                events.append(Heading(max(1, min(level, 6)), " ".join(source.split()), location))
            else:
                events.append(Block(source, location))
    first_h1 = next((e.text for e in events if isinstance(e, Heading) and e.level == 1), None)
    title = first_h1 or origin.stem
    return Parsed(title, _by_heading(events, title))


def _cells(notebook: Any) -> list[Any] | None:
    if not isinstance(notebook, dict):
        return None
    cells = notebook.get("cells")
    if isinstance(cells, list):
        return cells
    worksheets = notebook.get("worksheets")  # nbformat 3
    if isinstance(worksheets, list):
        return [cell for sheet in worksheets if isinstance(sheet, dict)
                for cell in sheet.get("cells", []) if isinstance(sheet.get("cells"), list)]
    return None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return value if isinstance(value, str) else ""


def _outputs(outputs: Any) -> str:
    """The text a reader sees under a code cell, each output cut short; rich ones dropped."""
    if not isinstance(outputs, list):
        return ""
    texts = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            texts.append(_text(output.get("text")))
        elif kind in ("execute_result", "display_data", "pyout"):
            data = output["data"] if isinstance(output.get("data"), dict) else output
            if any(str(key).startswith("image/") for key in data):
                continue  # a plot: the page shows the image, not "<Figure size 432x288 …>"
            texts.append(_text(data.get("text/plain", data.get("text", ""))))
        elif kind in ("error", "pyerr"):
            texts.append(f"{_text(output.get('ename'))}: {_text(output.get('evalue'))}")
    return "\n".join(_short(text) for text in texts if text.strip())


def _short(text: str) -> str:
    lines = text.strip("\n").split("\n")
    cut = "\n".join(lines[:MAX_OUTPUT_LINES])[:MAX_OUTPUT_CHARS]
    return cut + (" …" if len(lines) > MAX_OUTPUT_LINES or len(cut) == MAX_OUTPUT_CHARS else "")


def _relocated(events: list[Heading | Block], location: Location) -> list[Heading | Block]:
    return [Heading(e.level, e.text, location) if isinstance(e, Heading)
            else Block(e.text, location) for e in events]


def _by_heading(events: list[Heading | Block], title: str) -> tuple[Section, ...]:
    """Sections under the heading path in force, as an HTML page of the notebook has them
    (text before any heading goes under the title). A section runs over as many cells as
    its heading covers, so a short Markdown cell stays with the code it introduces; each
    cell it enters is a turn (`Section.turns`), so every chunk is cited by the cell it
    starts in, and the section by its first block's cell."""
    sections: list[Section] = []
    stack: list[Heading] = []
    path: tuple[str, ...] = (title,)
    text = ""
    location: Location | None = None
    turns: list[tuple[int, Location]] = []

    def flush() -> None:
        if text:
            sections.append(Section(path, text, location, tuple(turns)))

    for event in events:
        if isinstance(event, Heading):
            if not event.text:  # an empty heading (a lone "#") would add a blank step
                continue
            flush()
            text, turns = "", []
            while stack and stack[-1].level >= event.level:
                stack.pop()
            stack.append(event)
            path = tuple(heading.text for heading in stack)
        elif block := event.text.strip("\n").rstrip():
            if not text:
                text, location = block, event.location
            else:
                if event.location != (turns[-1][1] if turns else location) and event.location:
                    turns.append((len(text) + len(BLOCK_SEPARATOR), event.location))
                text += BLOCK_SEPARATOR + block
    flush()
    return tuple(sections)
