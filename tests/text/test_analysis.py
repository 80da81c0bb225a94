"""What a user notices of text analysis: which spellings and identifiers meet each other."""

from __future__ import annotations

import unicodedata
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from docai.records import Chunk
from docai.text.analysis import Analyzer, chunk_terms, default_analyzer

# The analyzer the index uses: what a passage and a question become in practice.
DEFAULT = default_analyzer()


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def test_accents_and_case_do_not_matter_either_way():
    assert DEFAULT.terms("configuração") == DEFAULT.terms("configuracao") == DEFAULT.terms(
        "CONFIGURAÇÃO"
    )
    assert DEFAULT.terms("Ação") == DEFAULT.terms("acao")
    passage = set(DEFAULT.terms("A configuração do proxy."))
    assert set(DEFAULT.query_terms("configuracao")) & passage
    assert set(DEFAULT.query_terms("Configuração")) & set(DEFAULT.terms("a configuracao do proxy"))


@given(st.text(alphabet="aãáâàeéêiíoóõôuúçcAÃÉÇ .-_", max_size=60))
def test_folding_accents_never_changes_the_terms(text):
    assert DEFAULT.terms(text) == DEFAULT.terms(_strip_accents(text))


def test_dotted_identifier_is_kept_whole_and_in_parts():
    terms = DEFAULT.terms("Use os.path.join here.")
    assert {"os.path.join", "os", "path", "join"} <= set(terms)
    assert "json.dumps" in DEFAULT.terms("call json.dumps(obj)")


def test_a_name_in_a_dotted_path_is_a_whole_term_of_its_own():
    # API references print `requests.auth.HTTPProxyAuth(...)`; users ask for "HTTPProxyAuth".
    terms = set(DEFAULT.terms("class requests.auth.HTTPProxyAuth and Response.raise_for_status()"))
    assert {"httpproxyauth", "raise_for_status"} <= terms
    assert "iter_content" in DEFAULT.terms("then call .iter_content() on it")
    # Plain words in a path are its parts already (stemmed), not whole terms again.
    assert "response" not in terms and "requests" not in terms


def test_flags_paths_and_snake_case_keep_whole_and_parts():
    terms = set(DEFAULT.terms(
        "git config --global edits ~/.gitconfig; set num_ctx and snake_case_name"
    ))
    assert {"--global", "global"} <= terms
    assert {"~/.gitconfig", "gitconfig"} <= terms
    assert {"num_ctx", "num", "ctx"} <= terms
    assert {"snake_case_name", "snake", "case", "name"} <= terms


def test_camel_case_is_split_and_lowered():
    assert {"camelcase", "camel", "case"} <= set(DEFAULT.terms("CamelCase"))
    assert {"httpserver", "http", "server"} <= set(DEFAULT.terms("HTTPServer"))
    assert not {"pd", "fs"} & set(DEFAULT.terms("PDFs"))


def test_numbers_and_versions_are_kept():
    terms = set(DEFAULT.terms("Python 3.11 with num_ctx 8192"))
    assert {"3.11", "8192"} <= terms


def test_whole_identifiers_are_not_stemmed_but_words_are():
    assert "running_jobs" in DEFAULT.terms("check running_jobs")
    assert "running" not in DEFAULT.terms("the jobs are running")
    assert DEFAULT.terms("installing") == DEFAULT.terms("installs")


def test_portuguese_inflections_meet():
    assert DEFAULT.terms("Você pode configurar.") == DEFAULT.terms("Isso é a configuração.")
    assert DEFAULT.terms("Você pode instalar.") == DEFAULT.terms("Esta é a instalação.")
    assert DEFAULT.terms("os arquivos do projeto") == DEFAULT.terms("o arquivo do projeto")


def test_portuguese_question_meets_english_docs_through_cognates():
    question = set(DEFAULT.query_terms("configuração"))
    assert question & set(DEFAULT.terms("The configuration of the server is read at start."))


def test_question_meets_english_word_inside_portuguese_passage():
    passage = set(DEFAULT.terms("O caching do índice é guardado em disco pelo docai."))
    assert set(DEFAULT.query_terms("how does caching work?")) & passage


def test_stop_words_and_question_words_give_no_terms():
    assert DEFAULT.terms("Como é que eu faço isso?") == []
    assert DEFAULT.terms("What is it and how do I do that?") == []
    assert DEFAULT.query_terms("o que é?") == []


def test_stemming_can_be_turned_off():
    assert Analyzer(stem=False).terms("running servers") == ["running", "servers"]
    assert Analyzer(stem=True).terms("running servers") != ["running", "servers"]


def test_heading_terms_count_once_more_than_the_body():
    chunk = Chunk(
        source="guia.md",
        heading_path=("Instalação", "Com pip"),
        ordinal=0,
        text="Instalação > Com pip\nRode pip install docai no terminal.",
        tokens=12,
    )
    counts = Counter(chunk_terms(chunk))
    body = Counter(DEFAULT.terms(chunk.text))
    heading_term = DEFAULT.terms("Instalação com pip de novo")[0]
    assert counts[heading_term] == body[heading_term] + 1
    assert counts["terminal"] == body["terminal"] == 1


def test_portuguese_question_meets_english_words_it_does_not_share():
    passage = set(DEFAULT.terms("The default folder for the search index is the user cache."))
    question = set(DEFAULT.query_terms("Qual é a pasta padrão da busca?"))
    assert {term for term in question if term in passage} >= set(
        DEFAULT.terms("default folder search")
    )
    untranslated = set(Analyzer(translate=False).query_terms("Qual é a pasta padrão da busca?"))
    assert not untranslated & passage


def test_plain_english_question_gets_no_translations():
    # "grand" has the Portuguese stem of "grande", which the glossary renders as "large".
    assert not set(DEFAULT.query_terms("What is the grand total?")) & set(DEFAULT.terms("large"))
    assert set(DEFAULT.query_terms("Qual é o total grande?")) & set(DEFAULT.terms("large"))


def test_a_question_word_and_its_translations_form_one_concept():
    concepts = Analyzer().query_concepts("Como mudo a pasta padrão?")
    folder = next(c for c in concepts if "folder" in c.terms)
    assert "directori" in folder.terms and folder.specific
    default = next(c for c in concepts if "default" in c.terms)
    assert folder is not default


def test_portuguese_plural_in_oes_meets_its_singular():
    analyzer = Analyzer()
    for plural, singular in (("opções", "opção"), ("versões", "versão"), ("botoes", "botão")):
        assert analyzer.terms(plural, "portuguese") == analyzer.terms(singular, "portuguese")


def test_names_are_specific_untranslated_lowercase_words_are_not():
    question = "Como publico no Netlify rapidinho?"
    concepts = {c.terms[0]: c for c in Analyzer().query_concepts(question)}
    assert concepts["netlifi"].specific  # a capitalised name the docs may not know
    assert not concepts["rapidinho"].specific  # a word we could not translate


def test_english_synonyms_only_widen_the_concept_not_the_ranked_terms():
    (change,) = Analyzer().query_concepts("modify")
    assert "edit" in change.related
    assert "edit" not in DEFAULT.query_terms("modify")


def test_portuguese_enclitic_pronoun_leaves_the_verb():
    analyzer = Analyzer()
    assert analyzer.terms("Para editá-la, abra", "portuguese") == analyzer.terms(
        "Para edita, abra", "portuguese"
    )
    (edit,) = analyzer.query_concepts("editá-la")
    assert "edit" in edit.terms and "edita-la" not in edit.terms
    assert analyzer.terms("use gh-pages", "english") == ["use", "gh-pages", "gh", "page"]


def test_word_rendered_only_by_english_stop_words_is_not_a_concept():
    # "antes" -> "before": a function word, which no passage indexes.
    with_it = Analyzer().query_concepts("Como confirmar antes de continuar?")
    without = Analyzer().query_concepts("Como confirmar de continuar?")
    assert with_it == without


def test_question_scaffolding_is_dropped_from_questions_only():
    analyzer = Analyzer()
    assert analyzer.query_concepts("Is there a way to rebuild now? Is it possible?") == (
        analyzer.query_concepts("rebuild")
    )
    assert "way" in analyzer.terms("The way to rebuild", "english")


def test_conjugated_portuguese_verbs_find_their_glossary_translation():
    # First-person forms, as questions use them; Snowball leaves them apart from the
    # infinitive the glossary holds ("abro" / "abrir", "protejo" / "proteger").
    for question, english in (
        ("Como abro o arquivo?", "open"),
        ("Como mantenho as versões antigas?", "keep"),
        ("Como protejo a pasta?", "protect"),
        ("Como restrinjo os valores?", "restrict"),
        ("Onde leio o registro?", "read"),
        ("O comando usa a pasta padrão?", "use"),
    ):
        assert set(DEFAULT.terms(english)) <= set(DEFAULT.query_terms(question)), question


def test_a_noun_that_looks_like_a_verb_form_gets_no_translation():
    # "carro" could be a form of "carrar": no such entry, so nothing is added.
    assert DEFAULT.query_terms("Onde fica o carro?") == Analyzer(translate=False).query_terms(
        "Onde fica o carro?"
    )


def test_names_and_identifiers_are_marked_named_plain_words_are_not():
    concepts = {c.terms[0]: c for c in Analyzer().query_concepts(
        "How do I connect my PostgreSQL database with --dry-run?")}
    assert concepts["postgresql"].named and concepts["--dry-run"].named
    assert not concepts["databas"].named and not concepts["connect"].named


def test_para_que_serve_wraps_a_question_but_serve_the_command_stays():
    analyzer = Analyzer()
    assert analyzer.query_concepts("Para que serve a opção --strict?") == (
        analyzer.query_concepts("a opção --strict?")
    )
    assert "serv" in analyzer.query_terms("Para que serve o comando serve?")
    # The name after the phrase is still a name.
    (netlify,) = analyzer.query_concepts("Para que serve Netlify?")
    assert netlify.named


def test_a_capital_that_starts_a_sentence_is_not_a_name():
    concepts = {c.terms[0]: c for c in Analyzer().query_concepts(
        "I deploy with scripts. Then Netlify rebuilds. \"Deploy\" fails: Logs say nothing."
    )}
    assert concepts["netlifi"].named
    assert not concepts["deploy"].named and not concepts["log"].named


def test_rare_lowercase_words_of_english_questions_are_specific_common_ones_are_not():
    # "restic" is the name of another tool; "ordinary" is the user's phrasing.
    concepts = {c.terms[0]: c for c in Analyzer().query_concepts(
        "How does it compare with restic for an ordinary backup?"
    )}
    assert concepts["restic"].specific
    assert not concepts["ordinari"].specific
    # An inflected common word splits in the tokenizer too, but is not a name.
    inflected = {c.terms[0]: c for c in Analyzer().query_concepts(
        "The server chokes on my tarballs"
    )}
    assert not inflected["choke"].specific
    assert inflected["tarbal"].specific
    # A Portuguese question's untranslated words are often just words we cannot translate.
    (portuguese,) = [c for c in Analyzer().query_concepts("Como comparo com o restic?")
                     if "restic" in c.terms]
    assert not portuguese.specific


def test_slash_joined_names_split_but_single_letters_and_lower_case_pairs_stay_whole():
    analyzer = Analyzer()
    assert [c.terms[0] for c in analyzer.query_concepts(
        "Swagger/OpenAPI, I/O, read/write, Library/preferences")] == [
        "swagger", "openapi", "i/o", "read/write", "library/preferences",
    ]
    assert analyzer.terms("Send GET/POST requests.") == ["send", "get", "post", "request"]


def test_a_plural_finds_its_singulars_glossary_entry():
    # Snowball stems "comandos" and "erros" apart from "comando" and "erro".
    terms = DEFAULT.query_terms("Quais comandos mostram erros?")
    assert "command" in terms and "error" in terms


def test_informal_portuguese_fillers_are_stop_words():
    assert DEFAULT.query_terms("tá demorando, vc sabe pq?") == DEFAULT.query_terms(
        "demorando, sabe?"
    )


def test_a_capital_after_an_abbreviation_is_still_a_name():
    concepts = {c.terms[0]: c for c in Analyzer().query_concepts(
        "Can I deploy to a host, e.g. Netlify, or ex. Vercel?")}
    assert concepts["netlifi"].named and concepts["vercel"].named


def test_e_g_and_i_e_are_no_subject_of_a_question():
    assert DEFAULT.query_terms(
        "Which port, i.e. the default one, e.g. 11434?"
    ) == DEFAULT.query_terms("Which port, the default one, 11434?")


def test_an_acronym_is_not_translated_but_a_title_case_word_is():
    # "RAM" is not "ramo" (branch); "Apago" typed capitalised is still "apagar" (delete).
    terms = DEFAULT.query_terms("Quanta memória RAM o build precisa?")
    assert "ram" in terms and "branch" not in terms
    assert "branch" in DEFAULT.query_terms("qual ramo uso?")
    assert "delet" in DEFAULT.query_terms("Como Apago O Cache Do Índice?")
