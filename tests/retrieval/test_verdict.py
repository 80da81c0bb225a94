"""The retrieval verdict a user notices: answer from passages, from one file, or refuse."""

from __future__ import annotations

from docai.records import Chunk
from docai.retrieval.search_index import SearchIndex
from docai.retrieval.verdict import Fallback, NotCovered, Passages, retrieve
from docai.text.analysis import chunk_terms
from tests.retrieval.matrices import matrix_of

DOCS = {
    "deploy.md": [
        ("Deploy", "Run the build command, then copy the site folder to your server."),
        ("Deploy > GitHub Pages", "The gh-deploy command pushes the site to GitHub Pages."),
    ],
    "network.md": [
        ("Network", "Set the proxy address in the configuration file."),
        ("Network > Limits", "The timeout and the number of retries can be raised."),
    ],
    "theme.md": [
        ("Theme", "Pick a theme and change its colours in the theme settings."),
    ],
}


def _index() -> SearchIndex:
    return _index_of(DOCS)


def _index_of(docs: dict[str, list[tuple[str, str]]]) -> SearchIndex:
    chunks = [
        Chunk(source, tuple(heading.split(" > ")), ordinal, f"{heading}\n{body}", 20)
        for source, sections in docs.items()
        for ordinal, (heading, body) in enumerate(sections)
    ]
    return SearchIndex(chunks, matrix_of([chunk_terms(c) for c in chunks]))


def test_a_covered_question_is_answered_from_passages():
    verdict = retrieve(_index(), "How do I publish my site to GitHub Pages?", 3)
    assert isinstance(verdict, Passages)
    assert verdict.hits[0].chunk.heading == "Deploy > GitHub Pages"


def test_portuguese_question_about_english_docs_is_covered():
    verdict = retrieve(_index(), "Como aumento o tempo limite e as tentativas da rede?", 3)
    assert isinstance(verdict, Passages)
    assert verdict.hits[0].chunk.source == "network.md"


def test_a_question_about_something_the_docs_never_mention_is_not_covered():
    index = _index()
    assert retrieve(index, "How do I deploy the site to Netlify with Terraform?", 3) == NotCovered()
    assert retrieve(index, "Como publico o site na Netlify usando o Terraform?", 3) == NotCovered()
    assert retrieve(index, "xyzzy plugh", 3) == NotCovered()


def test_a_file_covering_the_question_across_sections_is_the_fallback():
    # With a bar no passage reaches, the file holding proxy, timeout and retries answers.
    verdict = retrieve(_index(), "proxy timeout retries", 1, min_coverage=1.01)
    assert verdict == Fallback("network.md")


def test_a_zero_bar_always_gives_passages_when_a_word_is_known():
    verdict = retrieve(_index(), "How do I deploy the site to Netlify with Terraform?", 3, 0.0)
    assert isinstance(verdict, Passages) and verdict.hits


def test_naming_something_the_docs_never_mention_is_refused_though_the_rest_matches():
    index = _index()
    assert isinstance(retrieve(index, "Which proxy address does it use?", 3), Passages)
    assert retrieve(index, "Which proxy address does Tor use?", 3) == NotCovered()


def test_a_file_too_long_for_the_prompt_is_never_the_fallback():
    # network.md covers the question across sections, but reading it whole would not fit.
    index = _index()
    assert retrieve(index, "proxy timeout retries", 1, 1.01, max_file_tokens=40) == Fallback(
        "network.md"
    )
    assert retrieve(index, "proxy timeout retries", 1, 1.01, max_file_tokens=39) == NotCovered()


def test_a_paraphrase_using_words_found_elsewhere_in_the_docs_is_answered():
    # "site" and "folder" are in the docs, just not where the answer is; they must not
    # outweigh the proxy address and configuration the passage holds.
    index = _index()
    verdict = retrieve(index, "Can the site folder use a proxy address in its configuration?", 1)
    assert isinstance(verdict, Passages)
    assert verdict.hits[0].chunk.source == "network.md"
    assert retrieve(index, "Which Squid proxy holds the Varnish configuration?", 1) == (
        NotCovered()
    )


def test_a_camel_case_name_is_not_covered_by_its_parts():
    # "PostgreSQL" is not "SQL", nor "FastAPI" an "API" the docs happen to mention.
    index = _index_of({"db.md": [("Database", "Set the SQL database address and the API key.")]})
    assert isinstance(retrieve(index, "How do I set the SQL database address?", 3), Passages)
    assert retrieve(index, "How do I set the PostgreSQL database address?", 3) == NotCovered()
    assert retrieve(index, "How do I set the FastAPI key?", 3) == NotCovered()


def test_names_joined_by_a_slash_are_each_a_name():
    # Docs mentioning "Swagger" do not cover "OpenAPI" (see test_analysis for what stays whole).
    index = _index_of({"api.md": [("API", "Generate Swagger pages for the routes.")]})
    assert isinstance(retrieve(index, "Can I generate Swagger pages?", 3), Passages)
    assert retrieve(index, "Can I generate Swagger/OpenAPI pages?", 3) == NotCovered()


def test_a_multi_word_name_is_covered_only_by_the_whole_name():
    # Docs that say "drive" and "Google" apart do not cover "Google Drive".
    other = {f"page{i}.md": [("Page", f"Unrelated topic number {i}.")] for i in range(12)}
    apart = _index_of(other | {"backup.md": [("Backup", "Copy the drive to Google servers.")]})
    together = _index_of(other | {"backup.md": [("Backup", "Copy the Google Drive to servers.")]})
    question = "Can I copy my Google Drive?"
    assert retrieve(apart, question, 3) == NotCovered()
    assert isinstance(retrieve(together, question, 3), Passages)
    assert isinstance(retrieve(apart, "Can I copy my drive to Google?", 3), Passages)


def test_a_multi_word_name_with_a_word_the_docs_use_everywhere_is_not_looked_up():
    # "Flask CLI": the docs say "Flask" everywhere and "the CLI", not the exact pair.
    chunks = {f"page{i}.md": [("Flask", f"Flask handles topic {i}.")] for i in range(12)}
    chunks["cli.md"] = [("Command line", "Run the CLI of Flask to create a user.")]
    index = _index_of(chunks)
    assert isinstance(retrieve(index, "How do I use the Flask CLI to create a user?", 3), Passages)


def test_a_class_asked_by_its_own_name_is_found_in_its_dotted_signature():
    index = _index_of({"api.md": [
        ("API > Authentication", "class requests.auth.HTTPProxyAuth(username, password)\n"
                                 "Attaches HTTP Proxy Authentication to a given Request."),
        ("API > Sessions", "class requests.Session\nA Requests session keeps cookies."),
    ]})
    verdict = retrieve(index, "What is the HTTPProxyAuth class for?", 3)
    assert isinstance(verdict, Passages)
    assert verdict.hits[0].chunk.heading == "API > Authentication"


def test_everyday_words_the_passage_lacks_do_not_refuse_a_paraphrase():
    # Users describe the feature in their own everyday words ("tweak", "by hand", "fire
    # off"), which the docs use elsewhere; the passage about preparing a request answers.
    index = _index_of({
        "advanced.md": [
            ("Advanced > Prepared requests", "Prepare the request, then change the body or "
                                             "the headers before you send it."),
            ("Advanced > Hooks", "A hook can fire after each call."),
        ],
        "intro.md": [
            ("Intro", "Build the package first, then call it."),
            ("Intro > Tips", "Tweak the theme by hand, then build it."),
            ("Intro > Scripts", "Call the script by hand first."),
            ("Intro > Events", "Fire an event to tweak the build."),
        ],
    })
    verdict = retrieve(index, "Can I tweak the body or headers by hand before I fire it off?", 1)
    assert isinstance(verdict, Passages)
    assert verdict.hits[0].chunk.heading == "Advanced > Prepared requests"
    # A name the docs never mention still refuses the same phrasing.
    question = "Can I tweak the gRPC body or headers by hand before I fire it off?"
    assert retrieve(index, question, 1) == NotCovered()
