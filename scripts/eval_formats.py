"""Format parity: the same documents in several formats, the same questions, the same scores.

Debian ships some manuals in several forms at once (`debian-policy`: its Sphinx reST
sources, HTML, PDF and EPUB; every Sphinx `-doc` package: `_sources/*.rst.txt` beside
the HTML). A question set written on the HTML form is scored on each form with docai's
lexical default (words only, `--dense off`), its gold sources mapped form by form: a page
`x.html` is `x.rst.txt` among the sources, and the one file of a PDF or EPUB form. A
question whose gold answer no chunk of some form holds is left out of every form of that
twin (and counted), so the forms are compared on the same questions.

Usage: scripts/eval_formats.py [--fetch] [--check] [--twins NAME,...]
  --fetch   download the Debian packages (`apt-get download`) and unpack them under
            tests/eval/data/formats/ (nothing else is downloaded);
  --check   exit 1 when a form's hit@3 or MRR@10 is more than PARITY below its HTML
            twin's (the gate `make eval` can run for the reST and PDF twins).
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.cli.commands.evaluate import load_questions  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.evaluation import Gold, Question  # noqa: E402
from docai.retrieval.search_index import open_index  # noqa: E402
from docai.retrieval.verdict import retrieve, search  # noqa: E402
from docai.settings import Settings  # noqa: E402

DATA = ROOT / "tests" / "eval" / "data" / "formats"
PARITY = 0.03
BUDGET = prompt_budget(Settings().num_ctx)  # the longest fallback file `docai ask` allows
PACKAGES = ("debian-policy", "python-flask-doc", "git-doc")
POLICY = "usr/share/doc/debian-policy"
FLASK = "usr/share/doc/python-flask-doc/html"
GIT = "usr/share/doc/git-doc"
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


def _same(source: str) -> str:
    return source


def _rest(source: str) -> str:
    return source.removesuffix(".html") + ".rst.txt"


def _asciidoc(source: str) -> str:
    return source.removesuffix(".html") + ".adoc"


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
    Twin("flask", ROOT / "tests/eval/flask.jsonl", False, (
        Form("HTML", "flask/html", _same),
        Form("reST", "flask/rst", _rest),
    )),
)


def fetch() -> None:
    """The Debian packages, unpacked, and each form in a folder of its own."""
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=work, check=True)
        unpacked = Path(work) / "root"
        for deb in Path(work).glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        if DATA.exists():
            shutil.rmtree(DATA)
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
    parser.add_argument("--twins", default="")
    args = parser.parse_args(argv)
    if args.fetch or not DATA.exists():
        fetch()
    wanted = set(filter(None, args.twins.split(",")))
    failures = []
    rows = []
    for twin in TWINS:
        if wanted and twin.name not in wanted:
            continue
        questions = load_questions(twin.qa_file)
        opened = {}
        left_out: set[str] = set()
        for form in twin.forms:
            settings = Settings(docs_dir=DATA / form.folder, cache_dir=DATA / "cache",
                                dense=False)
            index, report = open_index(settings)
            for problem in evaluation.check_gold(mapped(questions, form), index.chunks):
                left_out.add(problem.split(":", 1)[0])
            opened[form.label] = (index, report)
        kept = [q for q in questions if q.id not in left_out]
        print(f"\n== {twin.name} ({'blind' if twin.blind else 'tuned on its HTML form'}): "
              f"{len(kept)} of {len(questions)} questions "
              f"({len(left_out)} left out: a gold answer missing from some form's chunks"
              f"{': ' + ', '.join(sorted(left_out)) if left_out else ''})")
        print(f"{'form':<6}{'files':>7}{'chunks':>8}{'hit@1':>7}{'hit@3':>7}{'MRR@10':>8}"
              f"{'refC':>6}")
        baseline = None
        for form in twin.forms:
            index, report = opened[form.label]
            outcomes = evaluation.evaluate(
                mapped(kept, form),
                lambda q, k, index=index: search(index, q, k, 0.0, None),
                lambda q, index=index: retrieve(index, q, Settings().top_k, None, None,
                                                max_file_tokens=BUDGET))
            summary = evaluation.summarise(outcomes)
            overall = summary.overall
            print(f"{form.label:<6}{report.files:>7}{report.chunks:>8}{overall.hit_at(1):>7.2f}"
                  f"{overall.hit_at(3):>7.2f}{overall.mrr:>8.2f}"
                  f"{summary.refusals.covered_refused:>6}")
            rows.append({"twin": twin.name, "form": form.label, "blind": twin.blind,
                         "questions": overall.questions, "hit@3": round(overall.hit_at(3), 3),
                         "mrr@10": round(overall.mrr, 3)})
            if baseline is None:
                baseline = overall
            elif (overall.hit_at(3) < baseline.hit_at(3) - PARITY
                  or overall.mrr < baseline.mrr - PARITY):
                failures.append(f"{twin.name} {form.label}: hit@3 {overall.hit_at(3):.2f} / "
                                f"MRR {overall.mrr:.2f} against HTML {baseline.hit_at(3):.2f} / "
                                f"{baseline.mrr:.2f}")
    print("\n" + json.dumps(rows))
    for failure in failures:
        print("parity missed:", failure)
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
