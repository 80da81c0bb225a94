"""Turn text into index terms: fold, tokenise, drop stop words, stem.

Choices, and why:

* Folding (NFKD, drop combining marks, casefold) happens *before* anything else, so
  "configuração" and "configuracao", "Ação" and "acao" become the same term whatever the
  user types.
* Technical identifiers are indexed whole *and* in parts: `os.path.join` gives
  `os.path.join`, `os`, `path`, `join`; `--global` gives `--global`, `global`;
  `CamelCase` gives `camelcase`, `camel`, `case`; `python3` gives `python3`, `python`,
  `3`; a CamelCase or snake_case name in a path is a whole term too
  (`requests.auth.HTTPProxyAuth` gives `httpproxyauth`, `.raise_for_status()` gives
  `raise_for_status`), as users ask for it by that name alone. Searching the exact
  identifier then ranks the passage that spells it first, while a prose question ("join
  paths") still reaches it. Whole identifiers are never stemmed; their alphabetic parts
  are (they behave like words in prose). Parts keep stop words (`os` in `os.path` is a
  module, not the Portuguese article).
* Stemming (Snowball via PyStemmer) must map the same word to the same term in the docs
  and in the question, or nothing matches. A passage is stemmed with one language, guessed
  from its stop words (long text: reliable). A question is short and often mixes
  languages ("como uso o caching?"), so each of its words gives both its English and its
  Portuguese stem; the stem the docs do not contain is simply unknown to the index and
  ignored. That also lets a Portuguese question meet English docs through cognates
  ("configuração" and "configuration" both stem to `configur`).
* Snowball's Portuguese rules need the accents we folded away ("-ção"), so the common
  accented suffixes are restored before stemming, from the folded form alone: typed with
  or without accents, a word gets the same stem.
* Where Portuguese and English words share no stem ("pasta" / "folder"), a question's
  Portuguese words also bring their usual English renderings (`glossary`), unless the
  question is plainly English. Passages are never translated: the index stays what the
  docs say.
* A Portuguese verb with an enclitic pronoun ("editá-la") is the verb alone, not an
  identifier: no passage spells the pair, so it would read as a subject the docs lack.
* Names joined by a slash ("Swagger/OpenAPI") are separate names; an acronym ("RAM") is
  never translated, so it is not read as a Portuguese word ("ramo").
* Questions also lose the words that wrap them but never name their subject ("is there a
  way", "é possível"; `stopwords.QUESTION_SCAFFOLDING`) and Portuguese words the glossary
  renders only as English stop words ("antes" -> "before"): neither should steer the
  ranking or lower the coverage that decides refusal.
* Order of the returned terms is text order but carries no meaning (bag of words).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

import Stemmer

from docai.records import Chunk
from docai.text import stopwords
from docai.text.glossary import ENGLISH_SYNONYMS, PORTUGUESE_TO_ENGLISH
from docai.text.inflection import infinitives, singulars
from docai.text.stopwords import (
    ENGLISH_ONLY,
    PORTUGUESE_ONLY,
    QUESTION_SCAFFOLDING,
    QUESTION_SCAFFOLDING_PHRASES,
    STOP_WORDS,
)
from docai.text.tokens import get_encoding
from docai.versioning import code_version

# Bump whenever the terms produced for a given text change; a hash of this module, the
# stop words and the stemmer's version is added anyway (`versioning.code_version`).
ANALYZER_VERSION = code_version("12", [__file__, stopwords.__file__], ["PyStemmer"])

STEM_CACHE_SIZE = 200_000

# A token: an optional flag/path prefix, word characters joined by . / : - (no trailing
# punctuation, so a sentence's full stop is not part of `os.path.join.`), and a
# trailing + or # for names such as c++ and c#.
_TOKEN = re.compile(r"(?:--?|[~./]+)?\w+(?:[./:\-]+\w+)*[+#]*")
# Parts of an identifier: case-change, letter/digit and punctuation boundaries.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\W\d_A-Za-z]+")
_SEGMENT_SEPARATORS = re.compile(r"[./:\-]+")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]{2}")
# Names joined by slashes ("Swagger/OpenAPI", "GET/POST"): each is a name of its own, so a
# passage mentioning one does not mention the other. Single letters ("I/O") and pairs not
# all capitalised ("read/write", "Docs/index", "Library/preferences") stay one identifier.
_SLASHED_NAMES = re.compile(r"[A-Z][A-Za-z]+(?:/[A-Z][A-Za-z]+)+")
# A Portuguese verb with an enclitic pronoun ("editá-la", "instalá-lo", "chama-se"): the
# verb is the word, the pronoun a stop word. Otherwise the pair is kept whole as an
# identifier that no passage spells, and counts as a specific subject the docs lack.
_ENCLITIC = re.compile(
    r"([^\W\d_]{3,})-(?:o|a|os|as|lo|la|los|las|no|na|nos|nas|lhe|lhes|me|te|se)"
)
_SCAFFOLDING_PHRASE = re.compile(
    r"\b(?:" + "|".join(re.escape(p) for p in QUESTION_SCAFFOLDING_PHRASES) + r")\b", re.IGNORECASE
)
# English inflectional suffixes and what they may replace ("emptier" -> empty).
_INFLECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ies", ("y",)), ("ied", ("y",)), ("ier", ("y",)), ("iest", ("y",)),
    ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")), ("ing", ("", "e")),
    ("er", ("", "e")), ("est", ("", "e")), ("ly", ("",)),
)
# Between a sentence's end and its first word: spaces, quotes, brackets, emphasis marks.
_SENTENCE_GAP = frozenset(" \t\r\n\"'`([*_-")
# Abbreviations whose full stop does not end a sentence ("e.g.", "i.e.", "ex.", "vs."; not
# "etc.", which often does).
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|ex|vs|cf|p\.ex)\.:?$", re.IGNORECASE)
_ABBREVIATION_SPAN = 8  # longest abbreviation and its stop, with room for \b to look back
# Abbreviations spelled as tokens: in a question, no subject of their own.
_ABBREVIATION_TOKENS = frozenset({"e.g", "i.e", "p.ex"})
_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")
_COMBINING_MARKS = re.compile(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+"
)
# Folded Portuguese suffixes that Snowball only recognises with their accents.
_PT_SUFFIXES = {
    "cao": "ção", "coes": "ções", "avel": "ável", "aveis": "áveis", "ivel": "ível",
    "iveis": "íveis", "ancia": "ância", "ancias": "âncias", "encia": "ência",
    "encias": "ências",
}
_PT_SUFFIX = re.compile("(" + "|".join(sorted(_PT_SUFFIXES, key=len, reverse=True)) + ")$")

ENGLISH = "english"
PORTUGUESE = "portuguese"


def fold_marks(text: str) -> str:
    """Decompose (NFKD) and drop combining marks, keeping case (needed to split CamelCase)."""
    text = _APOSTROPHE.sub("", text)
    if text.isascii():
        return text
    return _COMBINING_MARKS.sub("", unicodedata.normalize("NFKD", text))


def _language_votes(stop_words: list[str]) -> tuple[int, int]:
    """(Portuguese, English): how many stop words only that language uses."""
    portuguese = sum(1 for word in stop_words if word in PORTUGUESE_ONLY)
    english = sum(1 for word in stop_words if word in ENGLISH_ONLY)
    return portuguese, english


def guess_language(stop_words: list[str]) -> str:
    """English or Portuguese: which language's own (folded) stop words the text uses more.

    Only folded words count, so a passage typed without accents gets the same stems as
    with them. English wins ties: code-only passages have no stop words at all.
    """
    portuguese, english = _language_votes(stop_words)
    return PORTUGUESE if portuguese > english else ENGLISH


@dataclass(frozen=True)
class _Tokens:
    """A text's tokens in order, each flagged as a plain word (to stem) or an identifier."""

    tokens: list[tuple[str, bool]]
    stop_words: list[str]
    names: frozenset[str]  # words written capitalised, other than the text's first word
    acronyms: frozenset[str]  # words written in capitals ("RAM", "PDF"), wherever they are

    def language(self) -> str:
        return guess_language(self.stop_words)

    def surely_english(self) -> bool:
        portuguese, english = _language_votes(self.stop_words)
        return english > portuguese

    def words(self) -> list[str]:
        return [token for token, is_word in self.tokens if is_word]


@dataclass(frozen=True, slots=True)
class Concept:
    """One thing a question mentions: the terms that may stand for it in the docs.

    `related` holds English synonyms ("modify" for "change"): they count when deciding
    whether a passage mentions the concept, but do not rank passages (expanding the ranked
    query with them drifted to passages about the synonym on every evaluation set).
    `specific` says whether the docs not knowing any of the terms surely means they do not
    cover the thing: true for identifiers, capitalised names ("Netlify"), Portuguese
    words the glossary translates and, in English questions, rare words ("restic",
    `is_rare_english`). A lower-case word with no translation that the docs
    lack ("acontece", "tweak") may be the subject, but may as well be a word we could not
    translate or the user's own phrasing, so it weighs less (`relevance`). `named` says the
    user wrote it as a name or identifier: docs that lack it surely miss the subject.
    `whole_only` marks a CamelCase name ("PostgreSQL", "FastAPI", "OAuth"): its parts rank
    passages, but only the whole name mentions it, since its parts are other things ("SQL",
    "API", "auth") that docs about something else also use.
    """

    terms: tuple[str, ...]
    specific: bool
    related: tuple[str, ...] = ()
    named: bool = False
    whole_only: bool = False

    @property
    def alternatives(self) -> tuple[str, ...]:
        """Every term that counts as mentioning the concept (synonyms included)."""
        if self.whole_only:
            return self.terms[:1]
        return self.terms + self.related


@functools.lru_cache(maxsize=STEM_CACHE_SIZE)
def is_rare_english(word: str) -> bool:
    """Whether a large English tokenizer's vocabulary lacks `word` as one whole word.

    Why: cl100k's byte-pair vocabulary was learned from a huge, mostly English corpus, so
    a common word (" put", " ordinary", " browser") is one token and a rare one splits
    (" restic", " docstrings", " ionice"). In an English question, a lower-case word the
    docs never use is usually the user's own phrasing when it is common, but the name of
    a tool, service or format when it is rare, and docs that never name it do not cover it.
    Inflected forms of common words split too (" chokes", " emptier"), so a word is rare
    only when none of its base forms is one token.
    """
    encoding = get_encoding()
    return all(len(encoding.encode_ordinary(" " + form)) > 1 for form in _base_forms(word))


def _base_forms(word: str) -> list[str]:
    """`word` and what it may be an inflection of ("chokes" -> chokes, choke, chok)."""
    forms = [word]
    for suffix, replacements in _INFLECTIONS:
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3:
            forms += [stem + replacement for replacement in replacements]
    return forms


def starts_sentence(text: str, start: int) -> bool:
    """Whether the word at `start` begins a sentence (its capital says nothing about a name)."""
    before = start - 1
    while before >= 0 and text[before] in _SENTENCE_GAP:
        before -= 1
    if before >= 0 and text[before] in ".:" and _ABBREVIATION.search(
        text, max(0, before - _ABBREVIATION_SPAN), before + 1
    ):
        return False  # "e.g. Netlify", "ex.: Vercel": an abbreviation ends, not a sentence
    return before < 0 or text[before] in ".!?:"


def _tokenise(text: str) -> _Tokens:
    """Fold and split `text`; drop stop words and single letters (digits stay).

    Capitalised words that do not start a sentence are remembered as likely names
    ("Netlify").
    """
    tokens: list[tuple[str, bool]] = []
    stop_words: list[str] = []
    names: set[str] = set()
    acronyms: set[str] = set()
    folded = fold_marks(text)
    for match in _TOKEN.finditer(folded):
        token, start = match.group(), match.start()
        pieces = token.split("/") if "/" in token and _SLASHED_NAMES.fullmatch(token) else (token,)
        for piece in pieces:
            token = piece
            enclitic = _ENCLITIC.fullmatch(token) if "-" in token else None
            if enclitic and token.islower():
                token = enclitic.group(1)
            if token.isalpha() and (token.islower() or not _CAMEL.search(token)):
                word = token.casefold()
                if word in STOP_WORDS:
                    stop_words.append(word)
                elif len(word) > 1:
                    tokens.append((word, True))
                    if not token.islower() and not starts_sentence(folded, start):
                        names.add(word)
                    if token.isupper():
                        acronyms.add(word)
            else:
                tokens.append((token, False))
            start += len(piece) + 1
    return _Tokens(tokens, stop_words, frozenset(names), frozenset(acronyms))


def _identifier_terms(token: str, stem: Callable[[str], str]) -> list[str]:
    """The whole identifier (unstemmed), each CamelCase or snake_case name in a dotted path,
    and its parts (alphabetic ones stemmed).

    The dotted names because API references print paths ("requests.auth.HTTPProxyAuth",
    "Response.raise_for_status", ".raise_for_status()") and users ask for the name alone.
    """
    whole = token.casefold()
    terms = [whole]
    bare = token.lstrip("-~./")
    segments = _SEGMENT_SEPARATORS.split(bare)
    if len(segments) > 1 or bare != token:  # a path, or a method named with its dot
        terms += [s.casefold() for s in segments if "_" in s or _CAMEL.search(s)]
    for part in _PARTS.findall(token):
        if part.isdigit():
            if part != whole:
                terms.append(part)
        elif len(part) > 1:
            terms.append(stem(part.casefold()))
    return terms


def _finish(tokens: _Tokens, stem: Callable[[str], str]) -> list[str]:
    terms: list[str] = []
    for token, is_word in tokens.tokens:
        if is_word:
            terms.append(stem(token))
        else:
            terms.extend(_identifier_terms(token, stem))
    return terms


def _stem_portuguese(stemmer: Stemmer.Stemmer, word: str) -> str:
    # Snowball stems "-ão" and its plural "-ões" apart ("opção" -> opca, "opções" -> opco;
    # "versão" / "versões"): the plural is rewritten to the singular first.
    if len(word) > 4 and word.endswith("oes"):
        word = word[:-3] + "ao"
    accented = _PT_SUFFIX.sub(lambda match: _PT_SUFFIXES[match.group(1)], word)
    stem = stemmer.stemWord(accented)
    return stem if stem.isascii() else fold_marks(stem)


def _no_stem(word: str) -> str:
    return word


@dataclass(frozen=True)
class Analyzer:
    """Text -> terms. `stem=False` keeps folded words as they are; `translate=False` stops
    adding English renderings of a question's Portuguese words (both for evaluation).

    Holds its own bounded stem caches (a word is stemmed once per analyzer, not once per
    occurrence), so two analyzers never share mutable state.
    """

    stem: bool = True
    translate: bool = True
    synonyms: bool = True
    cache_size: int = STEM_CACHE_SIZE
    _stemmers: dict[str, Callable[[str], str]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _translations: dict[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _synonyms: dict[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        if self.stem:
            english = Stemmer.Stemmer(ENGLISH, 0)
            portuguese = Stemmer.Stemmer(PORTUGUESE, 0)
            cache = functools.lru_cache(maxsize=self.cache_size)
            stemmers = {
                ENGLISH: cache(english.stemWord),
                PORTUGUESE: cache(functools.partial(_stem_portuguese, portuguese)),
            }
        else:
            stemmers = {ENGLISH: _no_stem, PORTUGUESE: _no_stem}
        object.__setattr__(self, "_stemmers", stemmers)
        # Keyed by Portuguese stem so inflected forms ("pastas") find the entry ("pasta");
        # words sharing a stem ("tecla", "teclado") share their translations.
        # A rendering that is an English stop word ("antes" -> "before") is never indexed;
        # a word whose renderings all are stop words is a function word itself (an empty
        # entry: `query_concepts` drops it, as it would the English word).
        translations: dict[str, tuple[str, ...]] = {}
        for word, english_words in PORTUGUESE_TO_ENGLISH.items() if self.translate else ():
            key = stemmers[PORTUGUESE](word)
            stems = tuple(stemmers[ENGLISH](w) for w in english_words.split()
                          if w not in STOP_WORDS)
            translations[key] = tuple(dict.fromkeys(translations.get(key, ()) + stems))
        object.__setattr__(self, "_translations", translations)
        # Keyed by English stem; each stem maps to the other stems of its groups.
        synonyms: dict[str, tuple[str, ...]] = {}
        for group in ENGLISH_SYNONYMS if self.synonyms else ():
            stems = tuple(dict.fromkeys(stemmers[ENGLISH](w) for w in group.split()))
            for stem in stems:
                others = tuple(s for s in stems if s != stem)
                synonyms[stem] = tuple(dict.fromkeys(synonyms.get(stem, ()) + others))
        object.__setattr__(self, "_synonyms", synonyms)

    def terms(self, text: str, language: str | None = None) -> list[str]:
        """Document terms: every word stemmed in one language (guessed when not given)."""
        tokens = _tokenise(text)
        stem = self._stemmers[language or tokens.language()]
        return _finish(tokens, stem)

    def query_concepts(self, text: str) -> list[Concept]:
        """A question's concepts, in text order, repeats kept: each word (or identifier) with
        every term that may stand for it in the docs.

        A word brings its English and (when different) Portuguese stem and, unless the
        question is plainly English (an English "core" must not pick up "color" through
        Portuguese "cor"), the glossary's English words for it; an identifier brings its
        whole form and its parts. Grouping them lets the relevance bar ask "is this thing
        the user mentioned in the passage?" once per thing, whichever spelling the docs use.
        """
        # Replaced by a stop word, not a space: the next word must not look sentence-initial.
        tokens = _tokenise(_SCAFFOLDING_PHRASE.sub(" que ", text))
        english, portuguese = self._stemmers[ENGLISH], self._stemmers[PORTUGUESE]
        english_question = tokens.surely_english()
        translations = {} if english_question else self._translations
        concepts: list[Concept] = []
        for token, is_word in tokens.tokens:
            if not is_word and token.casefold() in _ABBREVIATION_TOKENS:
                continue  # "e.g.", "i.e.": no subject of their own
            if not is_word:
                concepts.append(Concept(
                    tuple(dict.fromkeys(_identifier_terms(token, english))),
                    specific=True, named=True, whole_only=token.isalpha(),  # CamelCase
                ))
                continue
            extra = portuguese(token)
            # An acronym is not translated: "RAM" is not "ramo" (branch). A capitalised
            # word may be ("Como Apago O Cache?" is typed in Title Case).
            named = token in tokens.names
            acronym = token in tokens.acronyms
            translated = None if acronym else self._translation(token, extra, translations)
            if token in QUESTION_SCAFFOLDING or translated == ():
                continue
            stem = english(token)
            translated = translated or ()
            terms = (stem,) if extra == stem else (stem, extra)
            related = tuple(s for t in (stem, *translated) for s in self._synonyms.get(t, ()))
            concepts.append(Concept(
                tuple(dict.fromkeys(terms + translated)),
                specific=bool(translated) or named or acronym
                or (english_question and is_rare_english(token)),
                related=tuple(s for s in dict.fromkeys(related) if s not in terms + translated),
                named=named,
            ))
        return concepts

    def _translation(
        self, token: str, stem: str, translations: dict[str, tuple[str, ...]]
    ) -> tuple[str, ...] | None:
        """The glossary's English stems for a Portuguese word (by its stem, else by the
        stem of a singular it may be the plural of or an infinitive it may be a form of);
        None when the glossary lacks it."""
        if stem in translations or not translations:
            return translations.get(stem)
        portuguese = self._stemmers[PORTUGUESE]
        for form in singulars(token) + infinitives(token):
            found = translations.get(portuguese(form))
            if found is not None:
                return found
        return None

    def query_terms(self, text: str) -> list[str]:
        """Question terms: every alternative of every concept (see `query_concepts`)."""
        return [term for concept in self.query_concepts(text) for term in concept.terms]

    def chunk_terms(self, chunk: Chunk) -> list[str]:
        """Index terms of a chunk; the heading path counts once more than the body.

        The text already starts with the heading line; adding the heading again makes a
        passage whose *section* is about the question's subject outrank a passing mention.
        The heading is stemmed in the chunk's language so both copies give the same terms.
        """
        tokens = _tokenise(chunk.text)
        language = tokens.language()
        stem = self._stemmers[language]
        return _finish(tokens, stem) + self.terms(" ".join(chunk.heading_path), language)


@functools.cache
def default_analyzer() -> Analyzer:
    """The analyzer the index and its callers share unless told otherwise.

    One per process, so its stem caches serve every chunk a build worker analyses and
    every question a session asks, instead of starting cold for each call."""
    return Analyzer()


def analyze(text: str) -> list[str]:
    """The terms of a passage (one stemming language, guessed from the text)."""
    return default_analyzer().terms(text)


def analyze_query(text: str) -> list[str]:
    """The terms of a question (both stems of each word; see the module docstring)."""
    return default_analyzer().query_terms(text)


def surely_english(text: str) -> bool:
    """Whether `text` uses more English-only than Portuguese-only stop words: docai's own
    answers ("the docs do not cover this") follow such a question's language, and stay in
    Portuguese, the interface's language, when the words do not tell."""
    return _tokenise(text).surely_english()


def chunk_terms(chunk: Chunk) -> list[str]:
    """The index-time terms of a chunk, heading boosted."""
    return default_analyzer().chunk_terms(chunk)
