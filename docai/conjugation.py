"""Portuguese verb forms -> candidate infinitives, so the glossary finds conjugated verbs.

Why: glossary entries are infinitives ("abrir", "manter"), and questions use the first or
third person ("Como abro...", "Como mantenho...", "o comando usa..."). Snowball leaves
short words whole and stems irregular forms apart from their infinitive ("abro" / "abrir",
"protejo" / "proteg"), so the stem alone misses them. These rules only propose
candidates: a candidate counts only when the glossary has it, so a noun that looks like a
verb form ("carro" -> "carrar") finds nothing and changes nothing.

Words arrive folded (no accents): "peço" is "peco".
"""

from __future__ import annotations

# Irregular first-person stems, most specific first: (ending, infinitive ending).
_IRREGULAR: tuple[tuple[str, str], ...] = (
    ("enho", "er"),    # mantenho -> manter, obtenho -> obter, contenho -> conter
    ("onho", "or"),    # ponho -> por, componho -> compor
    ("eio", "er"),     # leio -> ler, creio -> crer
    ("ejo", "eger"),   # protejo -> proteger, elejo -> eleger
    ("ejo", "er"),     # vejo -> ver, prevejo -> prever
    ("injo", "ingir"),  # restrinjo -> restringir, atinjo -> atingir
    ("ijo", "igir"),   # corrijo -> corrigir, exijo -> exigir
    ("eco", "edir"),   # peco -> pedir, meco -> medir
    ("ubro", "obrir"),  # descubro -> descobrir, cubro -> cobrir
    ("iro", "erir"),   # confiro -> conferir, prefiro -> preferir
    ("igo", "eguir"),  # sigo -> seguir
    ("irvo", "ervir"),  # sirvo -> servir
    ("aco", "azer"),   # desfaco -> desfazer
)
# Regular person endings of the present tense, longest first.
_ENDINGS = ("amos", "emos", "imos", "am", "em", "as", "es", "o", "a", "e")
_CONJUGATIONS = ("ar", "er", "ir")
# Shorter regular stems than this are too ambiguous to conjugate ("ma" -> "mar"); the
# irregular endings are distinctive enough for one letter ("leio" -> "ler").
_MIN_STEM = 2


def infinitives(word: str) -> tuple[str, ...]:
    """Infinitives `word` may be a present-tense form of, most likely first; () if none."""
    candidates = [
        word[: -len(ending)] + infinitive
        for ending, infinitive in _IRREGULAR
        if word.endswith(ending) and len(word) > len(ending)
    ]
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_STEM:
            candidates += [word[: -len(ending)] + c for c in _CONJUGATIONS]
            break
    return tuple(dict.fromkeys(c for c in candidates if c != word))
