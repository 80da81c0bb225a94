"""A `Parsed` (or why there is none) as JSON, from an isolated parse back to its caller.

The child process that wrote it read hostile bytes (`loading.isolated`), so its reply is
checked as untrusted data: every field of its promised type, or ValueError. JSON escapes a
lone surrogate and gives it back, so text that came from bytes travels unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from docai.loading.parsed import Parsed
from docai.records import Location, Section


def parsed_to_json(parsed: Parsed) -> str:
    return json.dumps({"title": parsed.title, "notes": list(parsed.notes), "sections": [
        [list(section.heading_path), section.text, _location(section.location),
         [[offset, _location(where)] for offset, where in section.turns]]
        for section in parsed.sections]})


def failure_to_json(kind: str, detail: str = "") -> str:
    return json.dumps({"failed": kind, "detail": detail})


def reply_from_json(data: bytes) -> Parsed | tuple[str, str]:
    """The `Parsed` or the (kind, detail) of a failure `data` holds; ValueError when it
    holds anything else."""
    reply = json.loads(data)
    if not isinstance(reply, dict):
        raise ValueError("not an object")
    if "failed" in reply:
        return _text(reply["failed"]), _text(reply.get("detail", ""))
    sections = tuple(_section(item) for item in _list(reply.get("sections")))
    return Parsed(_text(reply.get("title")), sections,
                  tuple(_text(note) for note in _list(reply.get("notes"))))


def _location(location: Location | None) -> list[Any] | None:
    return None if location is None else [location.unit, location.number]


def _section(item: Any) -> Section:
    heading, text, location, turns = _list(item, length=4)
    return Section(tuple(_text(part) for part in _list(heading)), _text(text),
                   None if location is None else _place(location),
                   tuple((_number(offset), _place(where))
                         for offset, where in (_list(turn, length=2) for turn in _list(turns))))


def _place(item: Any) -> Location:
    unit, number = _list(item, length=2)
    return Location(_text(unit), _number(number))  # checks the unit and the number


def _list(value: Any, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError("not the list expected")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def _number(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("not an integer")
    return value
