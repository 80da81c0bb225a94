"""Text made inert inside the prompt: it cannot close its source block, open another, fake
the question, or fake a chat turn.

The prompt puts each passage between `<source …>` and `</source>` (`prompt.py`). A document
is not docai's to trust, so its text goes through three steps, in this order (each relies on
the one before):

1. `normalise`: invisible format characters removed (zero-width spaces and joiners,
   U+FEFF, bidi controls, tag characters), so a hidden character cannot split a tag that a
   model would still read whole; and NFKC applied to the characters that only disguise
   others (full-width, half-width, small and vertical forms: `＜／ｓｏｕｒｃｅ＞` becomes
   `</source>`, `｜` becomes `|`). The other compatibility characters are ordinary text
   (`nº`, `1ª`, `m²`, `…`, `ℝ`) and stay as written; step 3 still reads through them.
2. `defuse_markers`: chat-template markers (`<|im_start|>`, `<｜end▁of▁sentence｜>`, `[INST]`,
   `<start_of_turn>`, …). Servers render the messages into the model's template and
   tokenise the result, so such a string inside a document can become a real turn
   boundary. Its opening bracket is replaced by a visible lookalike (`<` by `‹`, `[` by
   `⟦`) that no tokenizer treats as special.
3. `neutralise_tags`: the `<` of text that reads as `<source`, `</source`, `<sources` or
   `<question`, also spelled with a lookalike bracket or slash, Cyrillic or Greek letters,
   small capitals, any compatibility form (NFKD) or combining marks (`‹/sоurce>`),
   becomes `&lt;`. Only that bracket changes, so code samples (`a < b`, `List<T>`) stay as
   they are.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Characters a reader may take for `<` (`normalise` already turned `＜` and `﹤` into `<`).
# Quotation marks such as `«` are left out: they are ordinary punctuation in Portuguese.
LESS_THAN_LIKE = "<\u2039\u3008\u27e8\u276e\u276c\u1438\u02c2\u29fc\u2989\u227a\u226e"
SLASH_LIKE = "/\\\u2044\u2215\u29f8\u2571\u27cb"
# Lookalikes of the letters of our tag names, folded to them before matching.
_LETTER_LIKE = {
    "s": "\u0455\ua731",
    "o": "\u043e\u03bf\u0585\u1d0f",
    "u": "\u03c5\u057d\u1d1c\u028b",
    "r": "\u0433\u0280\uab47\u2c85",
    "c": "\u0441\u03f2\u1d04",
    "e": "\u0435\u04bd\u1d07\u03b5",
    "q": "\u051b",
    "i": "\u0456\u0131\u026a\u03b9\u04cf",
    "t": "\u0442\u1d1b\u03c4",
    "n": "\u0578\u0274\u043f\u03b7",
}
_FOLD = {
    **{look: letter for letter, looks in _LETTER_LIKE.items() for look in looks},
    **{look: "<" for look in LESS_THAN_LIKE},
    **{look: "/" for look in SLASH_LIKE},
}
_OPENER = re.compile(f"[{re.escape(LESS_THAN_LIKE)}]")
_ASCII_TAG = re.compile(r"<(?=[\s/\\]*(?:sources?|question)\b)", re.IGNORECASE)
_TAG_AFTER_OPENER = re.compile(r"[\s/]*(?:sources?|question)\b")
# Enough of what follows an opener (spaces and slashes aside) to hold the longest tag
# name and the character after it.
_LOOKAHEAD = 12

# Invisible characters that are not whitespace: Unicode's format characters (category Cf:
# zero-width space, joiners, U+FEFF, bidi embeddings, overrides and isolates, tag
# characters), plus the combining grapheme joiner and the Hangul fillers.
_EXTRA_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0")
# Compatibility decompositions that make a character a look-alike of another, not a
# character of its own (as `º` or `²` are).
_DISGUISES = ("<wide>", "<narrow>", "<small>", "<vertical>")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

_MARKER_WORDS = "INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CALLS"
_MARKER = re.compile(
    r"<\|[^\s|<>]{0,64}\|>"  # ChatML, Llama 3, Phi, DeepSeek (after NFKC), Command R, …
    r"|<</?SYS>>"  # Llama 2
    rf"|\[/?(?:{_MARKER_WORDS})\]"  # Mistral
    r"|</?(?:s|bos|eos|start_of_turn|end_of_turn)>",  # sentence markers, Gemma
    re.IGNORECASE,
)
_DEFUSED_BRACKET = {"<": "\u2039", "[": "\u27e6"}


def make_inert(text: str) -> str:
    """`text` as it may sit inside the prompt (the three steps above). Markers are looked
    for again at the end: a tag neutralised inside one (`<|<source|>`) leaves a marker
    whose inside no longer holds a bracket."""
    return defuse_markers(neutralise_tags(defuse_markers(normalise(text))))


def normalise(text: str) -> str:
    """`text` without invisible characters, disguised characters in their plain form, and
    composed (NFC): `<` followed by a combining overlay reads as `≮`, so a marker written
    with one (`<|<\u0338|>`) is seen, and defused, as the model's tokenizer would read it."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _NON_ASCII.sub(_plain, text))


def defuse_markers(text: str) -> str:
    """Chat-template markers with their first bracket replaced by a lookalike."""
    while (defused := _MARKER.sub(_defuse, text)) != text:
        text = defused
    return text


def neutralise_tags(text: str) -> str:
    """Our tags' opening bracket, however spelled, replaced by `&lt;`."""
    if text.isascii():
        return _ASCII_TAG.sub("&lt;", text)
    pieces: list[str] = []
    start = 0
    for match in _OPENER.finditer(text):
        if _TAG_AFTER_OPENER.match(_skeleton(text, match.end())):
            pieces += [text[start : match.start()], "&lt;"]
            start = match.end()
    return "".join(pieces) + text[start:] if pieces else text


def _skeleton(text: str, start: int) -> str:
    """What a reader sees from `start` on, reduced to plain lower-case ASCII where a
    character looks like one: accents and other combining marks dropped, lookalikes
    folded. Stops once `_LOOKAHEAD` characters other than spaces and slashes are
    collected."""
    folded: list[str] = []
    seen = 0
    for index in range(start, len(text)):
        for part in unicodedata.normalize("NFKD", text[index]):
            if unicodedata.combining(part) or _invisible(part):
                continue
            plain = part.casefold()
            plain = _FOLD.get(plain, plain)
            folded.append(plain)
            seen += not (plain.isspace() or plain == "/")
        if seen >= _LOOKAHEAD:
            break
    return "".join(folded)


def _invisible(char: str) -> bool:
    return char in _EXTRA_INVISIBLE or unicodedata.category(char) == "Cf"


@functools.lru_cache(maxsize=4096)
def _plain_char(char: str) -> str:
    if _invisible(char):
        return ""
    if unicodedata.decomposition(char).startswith(_DISGUISES):
        return unicodedata.normalize("NFKC", char)
    return char


def _plain(match: re.Match[str]) -> str:
    return _plain_char(match.group())


def _defuse(match: re.Match[str]) -> str:
    marker = match.group()
    return _DEFUSED_BRACKET[marker[0]] + marker[1:]
