"""roff's inline level, for `man.py`: escapes, macro arguments and mdoc's callable macros.

An escape is a backslash and a code: `\\fB` (a font: no text), `\\-` (a hyphen), `\\(em` or
`\\[em]` (a named glyph), `\\*(Aq` (a string defined by the page or a common default),
`\\[u00E9]` (a code point). Each is found by one pattern that cannot backtrack.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_GLYPHS = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”",
    "oq": "‘", "cq": "’", "bu": "•", "co": "©", "rg": "®", "tm": "™", "de": "°", "->": "→",
    "<-": "←", "=>": "⇒", "<=": "≤", ">=": "≥", "!=": "≠", "mu": "×", "di": "÷", "+-": "±",
    "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "or": "|", "at": "@", "sh": "#",
    "Do": "$", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "sc": "§",
    "ga": "`", "aa": "´", "pc": "·", "fo": "«", "fc": "»", "Fo": "«", "Fc": "»", "ss": "ß",
}
# Strings every man page expects (man(7) and the DocBook stylesheets' `Aq`, `lq`...).
_DEFAULT_STRINGS = {"Aq": "'", "lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "HF": "",
                    "-": "—", "`": "‘", "'": "’"}
_ESCAPE = re.compile(
    r"\\(?:"
    r"(?P<font>f(?:\[[^\]\n]*\]|\(..|.))"  # \fB \f(CW \f[B]
    r"|(?P<named>\((?P<two>..)|\[(?P<long>[^\]\n]*)\])"  # \(em \[em] \[u00E9]
    r"|\*(?:\((?P<string2>..)|\[(?P<string_long>[^\]\n]*)\]|(?P<string1>.))"  # \*(Aq \*x
    r"|(?P<size>s[-+]?(?:\d|\(\d\d|\[\d+\]))"  # \s-1 \s0
    r"|(?P<register>[nkgV](?:\(..|\[[^\]\n]*\]|.))"  # \n(.g
    r"|(?P<quoted>[hvwlLDbmoxXNSRZYA]'[^'\n]*')"  # \h'1n' \w'...' \N'233'
    r"|(?P<comment>[\"#].*)"  # \" comment to the end of the line
    r"|(?P<char>.)"
    r")"
)
_SIMPLE = {"-": "-", "e": "\\", "\\": "\\", "&": "", "^": "", "|": "", "0": " ", " ": " ",
           "~": " ", "c": "", "%": "", "'": "´", "`": "`", ".": ".", "t": " ", "d": "",
           "u": "", "p": "", "r": "", "z": "", "{": "", "}": "", ":": "", "/": "", ",": "",
           "!": "", "a": "", "E": "\\"}
_MDOC_DROPPED = {
    "Ar", "Cm", "Pa", "Ev", "Dv", "Er", "Va", "Ic", "Li", "Em", "Sy", "No", "Ql", "Ad",
    "An", "Lk", "Mt", "Ms", "Ft", "Fa", "Vt", "Tn", "Ux", "Bx", "At", "Fx", "Nx", "Ox",
    "Bsx", "Dx", "St", "Lb", "Sx", "Xo", "Xc", "Pf", "Ta", "Aq", "Bq", "Brq", "Eo", "Ec",
    "Ap", "It", "SY", "UR", "MT", "Dl", "D1", "Bd", "Ek", "Bk", "%A", "%T", "%B",
    "%D", "%J", "%N", "%O", "%P", "%Q", "%R", "%U", "%V", "Rs", "Re", "Fo", "Fc", "Fn",
}
_QUOTES = {"Dq": ("“", "”"), "Do": ("“", "”"), "Qq": ('"', '"'), "Sq": ("‘", "’"),
           "Pq": ("(", ")"), "Op": ("[", "]"), "Oo": ("[", ""), "Oc": ("", "]"),
           "Po": ("(", ""), "Pc": ("", ")"), "Dc": ("", "”"), "Qo": ('"', ""), "Qc": ("", '"')}
# An unquoted argument runs to the next unescaped space: `r\ filename` is one word.
_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|((?:\\.|[^\s\\]|\\$)+)')
_EXIT_STATUS = "The utility exits 0 on success, and >0 if an error occurs."


def inline(text: str, strings: Mapping[str, str]) -> str:
    """`text` with every escape replaced by what it shows."""
    if "\\" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        if match["font"] or match["size"] or match["register"] or match["comment"]:
            return ""
        if match["named"]:
            name = match["two"] or match["long"] or ""
            if name.startswith("u") and len(name) in (5, 6):
                try:
                    return chr(int(name[1:], 16))
                except ValueError:
                    return ""
            return _GLYPHS.get(name, "")
        string = match["string2"] or match["string_long"] or match["string1"]
        if string is not None:
            return strings.get(string, _DEFAULT_STRINGS.get(string, ""))
        if match["quoted"]:
            quoted = match["quoted"]
            if quoted[0] == "N" and quoted[2:-1].isdigit():
                return chr(int(quoted[2:-1])) if int(quoted[2:-1]) < 0x110000 else ""
            return ""
        return _SIMPLE.get(match["char"], match["char"])

    return _ESCAPE.sub(replace, text)


def split_arguments(rest: str) -> list[str]:
    """A macro's arguments: words, or "quoted words" as one ("" inside is a quote); an
    escaped space (`\\ `) joins the words around it, as roff reads it."""
    if '"' not in rest and "\\" not in rest:
        return rest.split()
    return [match[1].replace('""', '"') if match[1] is not None else match[2]
            for match in _ARGUMENT.finditer(rest)]


def mdoc_words(rest: str, name: str, strings: Mapping[str, str]) -> str:
    """The text an mdoc line (`Fl v Ar level`, `Op Fl a`, `Xr ls 1`) shows."""
    words = split_arguments(rest)
    out: list[str] = []
    closers: list[str] = []
    glue = False
    position = 0

    def emit(text: str) -> None:
        nonlocal glue
        if glue and out:
            out[-1] += text
        else:
            out.append(text)
        glue = False

    while position < len(words):
        word = words[position]
        position += 1
        if word == "Fl":
            following = words[position] if position < len(words) else ""
            if following and following not in _MACROS:
                emit("-" + inline(following, strings))
                position += 1
            else:
                emit("-")
            continue
        if word == "Nm":
            following = words[position] if position < len(words) else ""
            if not following or following in _MACROS:
                emit(name)
            continue
        if word == "Nd":
            emit("—")
            continue
        if word == "Xr":
            page = words[position:position + 2]
            position += len(page)
            emit(f"{page[0]}({page[1]})" if len(page) == 2 else "".join(page))
            continue
        if word == "Ns":
            glue = True
            continue
        if word in ("Ex",):
            emit(_EXIT_STATUS)
            position = len(words)
            continue
        if word in _QUOTES:
            opening, closing = _QUOTES[word]
            if opening:
                emit(opening)
                glue = True
            if word in ("Dq", "Do", "Qq", "Sq", "Pq", "Op") and closing:
                closers.append(closing)
            elif closing:
                _glue_last(out, closing)
            continue
        if word in _MDOC_DROPPED or word in ("OP", "Rv"):
            continue
        emit(inline(word, strings))
    for closing in reversed(closers):
        _glue_last(out, closing)
    return " ".join(part for part in out if part).strip()


def _glue_last(out: list[str], text: str) -> None:
    if out:
        out[-1] += text
    else:
        out.append(text)


_MACROS = _MDOC_DROPPED | set(_QUOTES) | {"Fl", "Nm", "Nd", "Xr", "Ns", "Ex"}
