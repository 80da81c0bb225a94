"""Fetch the public documentation the retrieval evaluation runs on.

Twenty corpora nobody on the team wrote (so the questions cannot be tuned to our own prose):

* MkDocs' user guide (`mkdocs-doc`): the set retrieval is tuned and its targets enforced on.
  Real HTML with navigation chrome, code blocks and a long changelog that acts as a distractor;
  about 20 pages, a few hundred chunks.
* Click's documentation (`python-click-doc`, Sphinx HTML): another project, another doc
  generator, another author, a long API reference and changelog as distractors (27 pages, a few
  hundred chunks). Held out at first; the refusal calibration later looked at it.
* BorgBackup's documentation (`borgbackup-doc`, Sphinx HTML): written blind (never run through
  docai while writing it); held out in session 2, a tuning set since. A command-line backup
  tool rather than a library: quick start, per-command usage pages, deployment guides and a
  long FAQ, with a very long changelog and internals pages as distractors (46 pages, several
  hundred chunks).
* fish's documentation (`fish-common`, Sphinx HTML): written blind, scored once as a held-out
  set, a tuning set since; about an interactive shell rather than a library or a backup tool:
  tutorial, a guide for bash users, a long FAQ and the language and interactive-use references,
  with one page per builtin command (over a hundred short reference pages) and very long
  release notes as distractors (130 pages).
* Flask's documentation (`python-flask-doc`, Sphinx HTML): written blind, session 3's
  held-out set, a tuning set since; about a web framework: installation, quickstart, a
  step-by-step tutorial, topic guides (testing, configuration, error handling, the CLI),
  over twenty "patterns" pages and deployment guides, with a very long API reference and
  changelog as distractors (72 pages).
* pytest's documentation (`python-pytest-doc`, Sphinx HTML): written blind, session 4's
  held-out set, a tuning set since; a test framework: how-to guides, explanations, a long
  API/ini/flag reference, examples, and over 150 release announcements as distractors
  (217 pages).
* Sphinx's documentation (`sphinx-doc`, Sphinx HTML): written blind, session 4's held-out
  set, a tuning set since; a documentation generator: tutorial, configuration reference,
  reStructuredText and extension guides, man pages, the extension API and a very long
  changelog (94 pages).
* Jinja's documentation (`python-jinja2-doc`, Sphinx HTML) and Requests' documentation
  (`python-requests-doc`, Sphinx HTML): written blind in session 5 and scored once as that
  session's held-out sets. Jinja: a template engine whose template-designer page is one
  very long page, plus the API, extensions, sandbox and FAQ (13 pages); Requests: an HTTP
  library's quickstart, advanced usage, authentication, API reference, FAQ and release
  history (15 pages).
* Hatch's and Black's documentation (Markdown from their PyPI source distributions):
  written blind in session 5 and scored once as held-out sets. Hatch: a Python project
  manager's MkDocs-Material docs, with admonitions and content tabs, a CLI reference, plugin
  pages, blog posts and change logs (81 pages); Black: a code formatter's MyST docs (notes
  as directives, tables of contents), style guide, integrations and FAQ (25 pages).
* Werkzeug's documentation (`python-werkzeug-doc`, Sphinx HTML: a WSGI library's tutorial,
  API reference, middleware and deployment guides, 39 pages) and Starlette's (Markdown
  from its PyPI source distribution: an ASGI framework, 25 pages): written blind at the
  end of session 5 and scored once with its final defaults; held out.
* The Debian Administrator's Handbook (`debian-handbook`, HTML, its pt-BR and en-US pages
  only: 254 pages) and mypy's documentation (`mypy-doc`, Sphinx HTML, 36 pages): written
  blind in session 7 for dense retrieval, scored once in session 8 with its final defaults.
* The Debian Reference (`debian-reference-en` and `debian-reference-pt`, two packages
  unpacked into one folder: 15 chapter pages per language) and setuptools' documentation
  (`python-setuptools-doc`, Sphinx HTML, 48 pages): written blind in session 9, scored once
  with session 8's defaults.
* The Debian FAQ (`debian-faq`, DocBook HTML, its 17 English pages: some 150 questions,
  each answered in a few paragraphs): written blind for issue 22, to choose the retrieval
  defaults on; not yet scored.
* The C++ Annotations (`c++-annotations-html`, 27 pages: a long prose book, one page per
  chapter, each tens of thousands of words): written blind for issue 22; not yet scored.
* The Foca GNU/Linux guide (`focalinux-html`, in Brazilian Portuguese: its intermediate and
  advanced levels, 55 pages), asked mostly in English: written blind for issue 22, for
  English questions over Portuguese docs; not yet scored.

Each comes from a Debian package or a PyPI source distribution pinned to one version and
checked against a SHA-256, so every run evaluates exactly the same text. Idempotent: a stamp
file next to the docs folder records what was unpacked, and a matching stamp means nothing
to do.

Run directly (`python scripts/fetch_eval_docs.py`) or through `scripts/eval.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pinned_docs import (  # noqa: E402
    DATA_DIR,
    DebianDocs,
    FetchError,
    PinnedDocs,
    PyPISource,
    fetch,
)

__all__ = ["ALL_DOCS", "DATA_DIR", "FetchError", "PinnedDocs", "fetch"]

# What Sphinx generates besides the docs: highlighted source code, the index pages, search.
SPHINX_GENERATED = frozenset({"_modules/", "genindex.html", "py-modindex.html", "search.html"})

MKDOCS = DebianDocs(
    name="mkdocs",
    package="mkdocs-doc",
    version="1.4.2+dfsg-2",
    sha256="cc460d8a893ebc0aee62a1883693d833ff0b31af0475578299b90e0f793ee84f",
    docs_path="usr/share/doc/mkdocs/html",
    excluded=frozenset(
        {"404.html", "user-guide/custom-themes.html", "user-guide/plugins.html",
         "user-guide/styling-your-docs.html"}
    ),
)


CLICK = DebianDocs(
    name="click",
    package="python-click-doc",
    version="8.1.3-2",
    sha256="066092b0299a04c2588e5f2e9dc37a8d8ed7a4c4eeb7cd3175ebfcfce24a8943",
    docs_path="usr/share/doc/python-click-doc/html",
    # Sphinx's generated index, search and error pages are navigation, not documentation.
    excluded=SPHINX_GENERATED | {"404.html"},
)

BORG = DebianDocs(
    name="borg",
    package="borgbackup-doc",
    version="1.2.4-1",
    sha256="f7c621fde76d460f071e8c0803d62198101f1c86ef3430db158f2e789570dbda",
    docs_path="usr/share/doc/borgbackup/html",
    # Sphinx's search page, the table-of-contents-only "book" page, the offline key-printing
    # tool (a JavaScript app) and the bundled font's readmes are not documentation.
    excluded=frozenset(
        {"search.html", "book.html", "paperkey.html",
         "_static/fonts/source-serif-pro/ReadMe.html",
         "_static/fonts/source-serif-pro/SourceSerifProReadMe.html"}
    ),
)

FISH = DebianDocs(
    name="fish",
    package="fish-common",
    version="3.6.0-3.1+deb12u1",
    sha256="7386d9ae1851784c9ab3818f18389dbe33f4961f48617393509e2cc99ac6b6e1",
    docs_path="usr/share/doc/fish",
    # Sphinx's search page and generated index are navigation, not documentation.
    excluded=frozenset({"search.html", "genindex.html"}),
)

FLASK = DebianDocs(
    name="flask",
    package="python-flask-doc",
    version="2.2.2-3",
    sha256="0659f6a04b15fe3f907150cadc0399fe987c790e722e001b73f7e49fa5ecca15",
    docs_path="usr/share/doc/python-flask-doc/html",
    # Sphinx's search, index and error pages are navigation, and the jQuery page is a
    # one-line stub pointing at its replacement.
    excluded=SPHINX_GENERATED | {"404.html", "patterns/jquery.html"},
)

PYTEST = DebianDocs(
    name="pytest",
    package="python-pytest-doc",
    version="7.2.1-2",
    sha256="8cf17eb7826a2bbbc8207447fc888cbb75fd86680146542ebd9545e18229d3aa",
    docs_path="usr/share/doc/python-pytest-doc/html",
    excluded=SPHINX_GENERATED | {"404.html"},
)

SPHINX = DebianDocs(
    name="sphinx",
    package="sphinx-doc",
    version="5.3.0-4",
    sha256="1da3d08bb3a0bc82a4b8b8109410e223054bf5fb13904557ec8ea869046f65b4",
    docs_path="usr/share/doc/sphinx-doc/html",
    excluded=SPHINX_GENERATED,
)

JINJA = DebianDocs(
    name="jinja",
    package="python-jinja2-doc",
    version="3.1.2-1+deb12u3",
    sha256="97b16e94881ccedd65c2b3b100497785089a4981cbcffcb03347e27b3d247931",
    docs_path="usr/share/doc/python-jinja2-doc/html",
    excluded=SPHINX_GENERATED | {"404.html"},
)

REQUESTS = DebianDocs(
    name="requests",
    package="python-requests-doc",
    version="2.28.1+dfsg-1",
    sha256="499f6c095d09971ec3aa7b7ff5197eaf999476ce3ee61edfccac64fe3f9e520f",
    docs_path="usr/share/doc/python-requests-doc/html",
    excluded=SPHINX_GENERATED,
)

HATCH = PyPISource(
    name="hatch",
    package="hatch",
    version="1.18.2",
    sha256="7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0",
    docs_path="hatch-1.18.2/docs",
    excluded=frozenset(),
)

BLACK = PyPISource(
    name="black",
    package="black",
    version="26.10.1",
    sha256="5f9f83beae62437e060dafd53d7f1fc327e3d3494f74d72ee5c2b73eb90fc4e7",
    docs_path="black-26.10.1/docs",
    excluded=frozenset(),
)

WERKZEUG = DebianDocs(
    name="werkzeug",
    package="python-werkzeug-doc",
    version="2.2.2-3+deb12u1",
    sha256="5aeffdfdf257911e3ade253d2b6cc3f98a06df3bec1332efdbc3fbd578530230",
    docs_path="usr/share/doc/python-werkzeug-doc/html",
    excluded=SPHINX_GENERATED | {"404.html"},
)

STARLETTE = PyPISource(
    name="starlette",
    package="starlette",
    version="1.10.0",
    sha256="b8399098d4c1e3522734f7235dc79b1fc967f96cf139c81e0fa30479e0685f9b",
    docs_path="starlette-1.10.0/docs",
    excluded=frozenset(),
)

# Written blind before dense retrieval, scored once after it: the Debian Administrator's
# Handbook in Brazilian Portuguese and English (the other 24 translations left out), and
# mypy's manual.
DEBIAN_HANDBOOK = DebianDocs(
    name="debian-handbook",
    package="debian-handbook",
    version="11.20220922",
    sha256="3d5dbeac1f1afc9c094eab9d0f701f6ecff99c4927d5a4794cf6c85678134faa",
    docs_path="usr/share/doc/debian-handbook/html",
    excluded=frozenset(f"{language}/" for language in (
        "ar-MA", "ca-ES", "cs-CZ", "da-DK", "de-DE", "el-GR", "es-ES", "fa-IR",
        "fr-FR", "hr-HR", "id-ID", "it-IT", "ja-JP", "ko-KR", "nb-NO", "nl-NL",
        "pl-PL", "ro-RO", "ru-RU", "sv-SE", "tr-TR", "vi-VN", "zh-CN", "zh-TW",
    )),
)

MYPY = DebianDocs(
    name="mypy",
    package="mypy-doc",
    version="1.0.1-1",
    sha256="75eb34bb525716882ff5334280fdd28264730a4c07f980d74a2ea3bdda458baf",
    docs_path="usr/share/doc/mypy/html",
    excluded=SPHINX_GENERATED | {"404.html"},
)

# Written blind in session 9, before any change to the session 8 defaults, and scored once
# with them: the Debian Reference in English and (European) Portuguese, one page per chapter,
# both languages in one folder; and setuptools' documentation.
DEBIAN_REFERENCE = DebianDocs(
    name="debian-reference",
    package="debian-reference-en",
    version="2.100",
    sha256="9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f",
    docs_path="usr/share/debian-reference",
    excluded=frozenset(),
    companions=(DebianDocs(
        name="debian-reference",
        package="debian-reference-pt",
        version="2.100",
        sha256="c9c5d30a8608485bad60f7bd7ce6c755af4a129c2b30511ee733b90ac17e7dfa",
        docs_path="usr/share/debian-reference",
        excluded=frozenset(),
    ),),
)

SETUPTOOLS = DebianDocs(
    name="setuptools",
    package="python-setuptools-doc",
    version="66.1.1-1+deb12u2",
    sha256="3592631a1b7f7df5762abf5eeb1d7bba4390f3b7667574552927f71e30a3eabd",
    docs_path="usr/share/doc/python-setuptools-doc/html",
    excluded=frozenset({"genindex.html", "search.html", "py-modindex.html", "404.html",
                        "userguide/commands.html", "userguide/keywords.html",
                        "_static/", "_sources/"}),
)

# Written blind for issue 22 (choosing retrieval defaults), from the pages alone, before any
# ranking of them was seen; not yet scored. The Debian FAQ: English question-and-answer pages
# only (each page's bare `.html` name is a symlink to its `.en.html`).
DEBIAN_FAQ = DebianDocs(
    name="debian-faq",
    package="debian-faq",
    version="11.1",
    sha256="427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0",
    docs_path="usr/share/doc/debian/FAQ",
    excluded=frozenset(),
    pattern="*.en.html",
)

# A long prose book: Frank Brokken's C++ Annotations, one HTML page per chapter (the
# alphabetical index page is navigation, the front page a script-driven frame).
CPP_ANNOTATIONS = DebianDocs(
    name="cpp-annotations",
    package="c++-annotations-html",
    version="12.2.0-2",
    sha256="17cdff3d44c3d6261af9e1339b4afc9b80cd085a0f7ee45489b3c4b6213e4ca9",
    docs_path="usr/share/doc/c++-annotations/html",
    excluded=frozenset({"cppindex.html", "index.html"}),
)

# A manual in Brazilian Portuguese, asked mostly in English: the Foca GNU/Linux guide's
# intermediate and advanced levels (the beginners' level is left out: most of its text
# reappears, extended, in the intermediate one).
FOCA_LINUX = DebianDocs(
    name="foca-linux",
    package="focalinux-html",
    version="2010-09-3.1",
    sha256="8c1dfc2201f5519571c938683c16cd195ff7cf6c39ae0aee1c58c63fb5b5110a",
    docs_path="usr/share/doc/focalinux/html",
    excluded=frozenset({"iniciante/"}),
)

ALL_DOCS = (
    MKDOCS, CLICK, BORG, FISH, FLASK, PYTEST, SPHINX, JINJA, REQUESTS, HATCH, BLACK, WERKZEUG,
    STARLETTE, DEBIAN_HANDBOOK, MYPY, DEBIAN_REFERENCE, SETUPTOOLS, DEBIAN_FAQ, CPP_ANNOTATIONS,
    FOCA_LINUX,
)


def main() -> int:
    try:
        for docs in ALL_DOCS:
            print(fetch(docs))
    except FetchError as error:
        print(f"fetch_eval_docs: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
