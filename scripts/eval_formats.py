"""Format parity: the same documents in several formats, the same questions, the same scores.

Debian ships some manuals in several forms at once (`debian-policy`: its Sphinx reST
sources, HTML, PDF and EPUB; every Sphinx `-doc` package: `_sources/*.rst.txt` beside
the HTML). A question set written on the HTML form is scored on each form with docai's
lexical default (words only, `--dense off`), its gold sources mapped form by form: a page
`x.html` is `x.rst.txt` among the sources, and the one file of a PDF or EPUB form. A
question whose gold answer no chunk of some form holds is left out of every form of that
twin (and counted), so the forms are compared on the same questions.

With `--dense` each form is also scored with the dense default as a fresh cache gives it
(every candidate embedded by the bundled model, no whole-collection ranking, as
`eval.py --dense-ci`), its vectors kept under the forms' cache.

Usage: scripts/eval_formats.py [--fetch] [--check] [--dense] [--twins NAME,...]
  --fetch   download the pinned Debian packages (`apt-get download`), build the Docusaurus
            twin with npm (`docusaurus_twin.py`), and unpack them under
            tests/eval/data/formats/ (also done when a form's folder is missing);
  --check   exit 1 when a form's hit@3 or MRR@10 is more than PARITY below its HTML
            twin's (`make eval` runs it; every twin must hold).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import docusaurus_twin  # noqa: E402
import manual_forms  # noqa: E402

from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.cli.commands.evaluate import load_questions  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking  # noqa: E402
from docai.retrieval.evaluation import Gold, Outcome, Question  # noqa: E402
from docai.retrieval.params import RetrievalParams  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
from docai.retrieval.verdict import retrieve, search  # noqa: E402
from docai.settings import Settings  # noqa: E402

DATA = ROOT / "tests" / "eval" / "data" / "formats"
PARITY = 0.03
BUDGET = prompt_budget(Settings().num_ctx)  # the longest fallback file `docai ask` allows
# Pinned (Debian 12's versions), so the figures are of the same text on every machine.
PACKAGES = ("debian-policy=4.6.2.0", "python-flask-doc=2.2.2-3", "git-doc=1:2.39.5-0+deb12u3",
            "python-nbsphinx-doc=0.8.11+ds-1")
POLICY = "usr/share/doc/debian-policy"
FLASK = "usr/share/doc/python-flask-doc/html"
GIT = "usr/share/doc/git-doc"
NBSPHINX = "usr/share/doc/python-nbsphinx/html"
_INCLUDE = re.compile(r"^include::(?!/)", re.MULTILINE)


@dataclass(frozen=True)
class Form:
    """One form of a twin: its docs folder (under DATA) and how a gold source maps to it."""

    label: str
    folder: str
    source: Callable[[str], str]


@dataclass(frozen=True)
class Twin:
    name: str
    qa_file: Path
    blind: bool
    forms: tuple[Form, ...]
    gated: bool = True  # --check fails on its misses; else they are reported only
    pages: bool = False  # also report the right page (any gold source) in the top 3
    origin: str = "debian"  # where its forms come from: Debian's packages, or npm's
    dense: bool = True  # also scored with the dense default under --dense (a large twin: not)


def _same(source: str) -> str:
    return source


def _rest(source: str) -> str:
    return source.removesuffix(".html") + ".rst.txt"


def _asciidoc(source: str) -> str:
    return source.removesuffix(".html") + ".adoc"


def _notebook(source: str) -> str:
    """nbsphinx's pages are notebooks but for a few reST ones (`contributing.rst`...)."""
    stem = source.removesuffix(".html")
    return stem + (".rst" if (DATA / "nbsphinx/ipynb" / f"{stem}.rst").is_file() else ".ipynb")


TWINS = (
    Twin("debian-policy", ROOT / "tests/eval/debian-policy.jsonl", True, (
        Form("HTML", "policy/html", _same),
        Form("reST", "policy/rst", _rest),
        Form("PDF", "policy/pdf", lambda source: "policy.pdf"),
        Form("EPUB", "policy/epub", lambda source: "policy.epub"),
    )),
    Twin("git", ROOT / "tests/eval/git-asciidoc.jsonl", True, (
        Form("HTML", "git/html", _same),
        Form("AsciiDoc", "git/adoc", _asciidoc),
    )),
    Twin("git-man", ROOT / "tests/eval/git-asciidoc.jsonl", True, (
        Form("HTML", "git/html", _same),
        Form("man", "git/man", lambda source: manual_forms.git_man_source(source, DATA)),
    ), gated=False),  # new form: reported, gated once it has held on a run
    Twin("python-docs", ROOT / "tests/eval/python-docs.jsonl", True, (
        Form("HTML", "python-docs/html", _same),
        Form("reST", "python-docs/rst", _rest),
    ), gated=False, dense=False),  # blind hit@3 two questions short: reported; 15,000
    # chunks to embed would double `make eval`'s formats time, so words only
    Twin("man-info", ROOT / "tests/eval/man-info.jsonl", False, (  # scored, then read on
        Form("man+info", "man-info", _same),
    ), gated=False, dense=False, pages=True),  # one form, no twin: the right page in the
    # top 3 reported against 0.85
    Twin("man-info-blind", ROOT / "tests/eval/man-info-blind.jsonl", True, (
        Form("man+info", "man-info", _same),
    ), gated=False, dense=False, pages=True),  # written after the first set was scored,
    # its gold in both manuals where both state the answer; scored once
    Twin("nbsphinx", ROOT / "tests/eval/nbsphinx.jsonl", True, (
        Form("HTML", "nbsphinx/html", _same),
        Form("notebook", "nbsphinx/ipynb", _notebook),
    ), gated=False),  # its blind MRR misses parity (docs/evaluation.md): reported, not gated
    Twin("flask", ROOT / "tests/eval/flask.jsonl", False, (
        Form("HTML", "flask/html", _same),
        Form("reST", "flask/rst", _rest),
    )),
    Twin("docusaurus", ROOT / "tests/eval/docusaurus.jsonl", True, (
        Form("HTML", "docusaurus/html", _same),
        Form("MDX", "docusaurus/mdx", docusaurus_twin.mdx_source),
    ), gated=False, origin="npm"),  # built with npm at fetch time: reported, not gated
)


def fetch(origins: Iterable[str] = ("debian", "npm")) -> None:
    """The twins of `origins`, each form in a folder of its own."""
    origins = set(origins)
    if "npm" in origins:
        try:
            docusaurus_twin.build_forms(DATA / "docusaurus")
        except (OSError, subprocess.CalledProcessError) as error:  # no npm, or no registry
            print(f"the Docusaurus twin was not built ({error}): it is left out")
    if "debian" in origins:
        _debian_forms()


def _debian_forms() -> None:
    """The Debian packages, unpacked, and each form in a folder of its own."""
    with tempfile.TemporaryDirectory() as work:
        Path(work).chmod(0o755)  # apt's download user must be able to enter it
        subprocess.run(["apt-get", "download", "-q", *PACKAGES], cwd=work, check=True)
        unpacked = Path(work) / "root"
        for deb in Path(work).glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        for folder in ("policy", "flask", "git", "nbsphinx", "cache"):
            shutil.rmtree(DATA / folder, ignore_errors=True)
        policy = unpacked / POLICY
        shutil.copytree(policy / "policy.html", DATA / "policy/html",
                        ignore=shutil.ignore_patterns("_sources", "_static", "_images"))
        shutil.copytree(policy / "policy.html/_sources", DATA / "policy/rst")
        (DATA / "policy/pdf").mkdir(parents=True)
        with gzip.open(policy / "policy.pdf.gz") as packed:
            (DATA / "policy/pdf/policy.pdf").write_bytes(packed.read())
        (DATA / "policy/epub").mkdir(parents=True)
        shutil.copy(policy / "policy.epub", DATA / "policy/epub/policy.epub")
        flask = unpacked / FLASK
        shutil.copytree(flask, DATA / "flask/html",
                        ignore=shutil.ignore_patterns("_sources", "_static", "_images"))
        shutil.copytree(flask / "_sources", DATA / "flask/rst")
        _git_forms(unpacked / GIT)
        nbsphinx_forms(unpacked / NBSPHINX)
    manual_forms.git_man_form(DATA)
    manual_forms.python_docs_forms(DATA)
    manual_forms.man_info_folder(DATA)


def nbsphinx_forms(html: Path) -> None:
    """nbsphinx's manual as HTML pages and as its sources: notebooks (some shipped gzipped)
    and the few reST pages."""
    shutil.copytree(html, DATA / "nbsphinx/html", ignore=shutil.ignore_patterns(
        "_sources", "_static", "_images", "*.ipynb", "*.gz", "*.txt", "*.png", "*.svg"))
    sources = DATA / "nbsphinx/ipynb"
    shutil.copytree(html / "_sources", sources, ignore=shutil.ignore_patterns("*.gz"))
    for packed in (html / "_sources").rglob("*.gz"):
        target = sources / packed.relative_to(html / "_sources").with_suffix("")
        with gzip.open(packed) as stream:
            target.write_bytes(stream.read())


def on_disk(twin: Twin) -> bool:
    return all((DATA / form.folder).is_dir() for form in twin.forms)


def missing() -> set[str]:
    """The origins of the twins with a form not on disk (a new twin, or nothing fetched)."""
    return {twin.origin for twin in TWINS for form in twin.forms
            if not (DATA / form.folder).is_dir()}


def _git_forms(git: Path) -> None:
    """git's pages as HTML, and their AsciiDoc sources (shipped as `.txt`) as `.adoc`. The
    fragments the pages include (`diff-options.txt`...) have no page of their own: they go
    to a hidden folder (never indexed, still inside the docs folder) that the pages'
    include lines are pointed at."""
    html = DATA / "git/html"
    adoc = DATA / "git/adoc"
    html.mkdir(parents=True)
    shutil.copytree(git, adoc / ".fragments", ignore=shutil.ignore_patterns("*.html", "*.gz"))
    for page in sorted(git.glob("*.html")):
        shutil.copy(page, html / page.name)
        source = git / (page.stem + ".txt")
        if source.is_file():
            text = source.read_text(encoding="utf-8", errors="replace")
            (adoc / (page.stem + ".adoc")).write_text(
                _INCLUDE.sub("include::.fragments/", text), encoding="utf-8")


def mapped(questions: Sequence[Question], form: Form) -> list[Question]:
    return [Question(q.id, q.question, tuple(Gold(form.source(g.source), g.answer)
                                                for g in q.gold), q.type, q.lang)
            for q in questions]


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--dense", action="store_true")
    parser.add_argument("--twins", default="")
    args = parser.parse_args(argv)
    if args.fetch or missing():
        fetch(("debian", "npm") if args.fetch else missing())
    wanted = set(filter(None, args.twins.split(",")))
    failures: list[str] = []
    reported: list[str] = []
    rows: list[dict[str, object]] = []
    for twin in TWINS:
        if not on_disk(twin):
            print(f"\n== {twin.name}: not on disk (its fetch failed), left out")
        elif not wanted or twin.name in wanted:
            missed = _score_twin(twin, args.dense and twin.dense, rows)
            failures += missed if twin.gated else []
            reported += [] if twin.gated else missed
    print("\n" + json.dumps(rows))
    for failure in failures:
        print("parity missed:", failure)
    for miss in reported:
        print("parity missed (reported, not gated):", miss)
    if not failures:
        print("parity held: every gated form within", PARITY, "of its HTML twin")
    return 1 if args.check and failures else 0


def _score_twin(twin: Twin, dense: bool, rows: list[dict[str, object]]) -> list[str]:
    """Print the twin's table; add its rows; return the parity misses."""
    questions = load_questions(twin.qa_file)
    opened = {}
    left_out: set[str] = set()
    for form in twin.forms:
        settings = Settings(docs_dir=DATA / form.folder, cache_dir=DATA / "cache", dense=False)
        index, report = open_index(settings)
        for problem in evaluation.check_gold(mapped(questions, form), index.chunks):
            left_out.add(problem.split(":", 1)[0])
        opened[form.label] = (settings, index, report)
    kept = [q for q in questions if q.id not in left_out]
    print(f"\n== {twin.name} ({'blind' if twin.blind else 'tuned'}): "
          f"{len(kept)} of {len(questions)} questions "
          f"({len(left_out)} left out: a gold answer missing from some form's chunks"
          f"{': ' + ', '.join(sorted(left_out)) if left_out else ''})")
    print(f"{'form':<9}{'files':>6}{'chunks':>7}{'hit@1':>7}{'hit@3':>7}{'MRR@10':>8}{'refC':>6}"
          + (f"{'dense hit@3':>13}{'MRR@10':>8}" if dense else ""))
    failures = []
    baseline: dict[str, evaluation.Scores] = {}
    for form in twin.forms:
        settings, index, report = opened[form.label]
        figures = {"words": evaluation.summarise(_outcomes(mapped(kept, form), index, None))}
        if dense:
            figures["dense"] = evaluation.summarise(_dense_outcomes(mapped(kept, form),
                                                                    settings, index))
        words = figures["words"].overall
        line = (f"{form.label:<9}{report.files:>6}{report.chunks:>7}{words.hit_at(1):>7.2f}"
                f"{words.hit_at(3):>7.2f}{words.mrr:>8.2f}"
                f"{figures['words'].refusals.covered_refused:>6}")
        if dense:
            meaning = figures["dense"].overall
            line += f"{meaning.hit_at(3):>13.2f}{meaning.mrr:>8.2f}"
        print(line)
        if twin.pages:
            print(_right_pages(mapped(kept, form), index))
        for mode, summary in figures.items():
            overall = summary.overall
            rows.append({"twin": twin.name, "form": form.label, "mode": mode,
                         "blind": twin.blind, "questions": overall.questions,
                         "hit@3": round(overall.hit_at(3), 3), "mrr@10": round(overall.mrr, 3)})
            base = baseline.setdefault(mode, overall)
            if base is not overall and (overall.hit_at(3) < base.hit_at(3) - PARITY
                                        or overall.mrr < base.mrr - PARITY):
                failures.append(f"{twin.name} {form.label} ({mode}): hit@3 "
                                f"{overall.hit_at(3):.2f} / MRR {overall.mrr:.2f} against HTML "
                                f"{base.hit_at(3):.2f} / {base.mrr:.2f}")
    return failures


def _right_pages(questions: Sequence[Question], index: SearchIndex) -> str:
    """How many questions have a passage of one of their gold pages in the top 3 (words
    only), in all and per language: the man/info sets' target is the right page."""
    found: dict[str, list[bool]] = {}
    for question in questions:
        pages = {gold.source for gold in question.gold}
        top = [hit.chunk.source for hit in search(index, question.question, 3, 0.0, None)]
        found.setdefault(question.lang or "?", []).append(any(s in pages for s in top))
    every = [hit for hits in found.values() for hit in hits]
    return (f"right page in the top 3: {sum(every) / max(len(every), 1):.2f} ("
            + ", ".join(f"{lang} {sum(hits)}/{len(hits)}" for lang, hits in sorted(found.items()))
            + ")")


def _outcomes(questions: Sequence[Question], index: SearchIndex,
              dense: DenseRanking | None) -> list[Outcome]:
    return evaluation.evaluate(
        questions,
        lambda q, k: search(index, q, k, 0.0, dense),
        lambda q: retrieve(index, q, Settings().top_k, None, dense, max_file_tokens=BUDGET))


def _dense_outcomes(questions: Sequence[Question], settings: Settings,
                    index: SearchIndex) -> list[Outcome]:
    """The dense default as a fresh cache gives it (as `eval.py --dense-ci`)."""
    from eval_scoring import dense_ranking  # the model and its vector cache: only here

    from docai.retrieval.embedders import BundledE5

    fresh = replace(RetrievalParams(), dense_full_weight=0.0, dense_question_windows=10**9)
    ranking = dense_ranking(settings, index, BundledE5(), fresh, full=False)
    try:
        return _outcomes(questions, index, ranking)
    finally:
        ranking.save()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
