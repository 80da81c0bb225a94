"""Inflected forms -> the dictionary forms they may come from, as candidates.

Why, for Portuguese: glossary entries are infinitives ("abrir", "manter") and singular
nouns ("comando"), and questions use the first or third person ("Como abro...", "Como
mantenho...", "o comando usa...") and plurals ("os comandos", "erros"). Snowball leaves
short words whole, stems irregular forms apart from their infinitive ("abro" / "abrir",
"protejo" / "proteg"), and stems some plurals apart from their singular ("comandos" ->
comand, "comando" -> com; "erros" -> erros, "erro" -> erro), so the stem alone misses
them. These rules only propose candidates: a candidate counts only when the glossary has
it, so a noun that looks like a verb form ("carro" -> "carrar") finds nothing and changes
nothing. Words arrive folded (no accents): "peço" is "peco".

Why, for English: whether a word is rare (`concepts.is_rare_english`) is asked of its base
forms too, since an inflected common word ("chokes", "emptier") is no rarer than the word.
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


# Plural endings and their singular, most specific first: itens -> item, papeis -> papel,
# possiveis -> possivel, flores -> flor, comandos -> comando. A plain -s follows a vowel
# only: Portuguese nouns end in a vowel or in l, m, r, s, z, so an English plural such as
# "limits" proposes nothing.
_PLURALS: tuple[tuple[str, str], ...] = (
    ("ns", "m"), ("eis", "el"), ("eis", "il"), ("ais", "al"), ("ois", "ol"), ("uis", "ul"),
    ("res", "r"), ("zes", "z"), ("ses", "s"),
    ("as", "a"), ("es", "e"), ("os", "o"), ("is", "i"), ("us", "u"),
)

# English inflectional suffixes and what they may replace ("emptier" -> empty).
_ENGLISH_SUFFIXES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ies", ("y",)), ("ied", ("y",)), ("ier", ("y",)), ("iest", ("y",)),
    ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")), ("ing", ("", "e")),
    ("er", ("", "e")), ("est", ("", "e")), ("ly", ("",)),
)
# An English stem shorter than this is no word of its own ("s" + "ing").
_MIN_ENGLISH_STEM = 3


def singulars(word: str) -> tuple[str, ...]:
    """Singular nouns `word` may be the plural of, most likely first; () if none."""
    return tuple(dict.fromkeys(
        word[: -len(ending)] + singular
        for ending, singular in _PLURALS
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_STEM
    ))


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


def english_base_forms(word: str) -> list[str]:
    """`word` and what it may be an inflection of ("chokes" -> chokes, choke, chok)."""
    forms = [word]
    for suffix, replacements in _ENGLISH_SUFFIXES:
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= _MIN_ENGLISH_STEM:
            forms += [stem + replacement for replacement in replacements]
    return forms
