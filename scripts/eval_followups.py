"""Follow-up questions: are they retrieved as what they mean in their conversation?

`tests/eval/followups.jsonl` holds conversation pairs written blind (before the conversation
feature): a first question, an elliptical follow-up ("e como eu apago ele?"), the same
follow-up written out as a standalone question, and the follow-up's gold passages; `docs`
is `resources/docs`, a folder of `tests/eval/` or a collection of `tests/eval/data/`
(fetched like `scripts/eval.py`'s). `tests/eval/conversations.jsonl` (issue 23, written
blind before follow-ups were told from standalone questions) holds longer conversations in
the same form, `before` listing the earlier questions: follow-ups across languages, chains of
three, and topic switches (kind `switch`: a question that stands alone after unrelated ones,
its standalone form itself). `tests/eval/conversations2.jsonl` (written blind, by readers who
saw neither the rankings nor the method, before a question refused in its conversation
could be answered as if asked alone) holds more of every kind over collections no
follow-up set had used, and follow-ups the docs do not answer (`gold` empty): they must
still be refused. `conversations3.jsonl` and `conversations4.jsonl`, written blind the same
way before the changes they first measured (docs/evaluation.md), add more of both, and
topic switches whose pronouns point inside the question itself; `conversations5.jsonl`,
written the same way over twelve collections, scores the shipped method on every kind at
once.

For each pair the follow-up is retrieved four ways, scored as `docai eval` scores a question
(hit@k, MRR@10, a wrongly refused question counting as a miss):

- bare:        the follow-up's own words, as docai answered before it kept a conversation;
- joined:      the first question and the follow-up joined into one text, weighing the same
               (the simplest reading in context; shown for comparison);
- in context:  what the REPL does (`docai.answer.reading`): the same text with the
               follow-up's words weighing twice, ranked once, its passages judged on the
               joined text, or on the follow-up's own words when those answer it and the
               joined text does not. The earlier questions are asked as the REPL would
               have asked them, in turn, so a refused one is marked refused;
- standalone:  the standalone question asked alone: the target.

Two more checks of "in context": a topic switch must be retrieved as in a fresh session (the
same verdict and passages as the question asked alone), and a follow-up must not be refused
where its standalone form is answered.

Exits 1 when "in context" is more than 0.05 hit@3 below "standalone" (issue 23's target),
when fewer than 95 % of the topic switches are retrieved as fresh, when a follow-up is
wrongly refused, or when a gold answer is in no chunk of its source; `--report-only` prints
without enforcing the targets.

`--dense` scores the same four ways with the dense default re-ranking the lexical candidates
(the bundled multilingual E5, as in the REPL), through `scripts/eval.py`'s dense ranking:
candidate windows embedded when missing, their vectors and the questions' kept under
tests/eval/data/cache/, so only the first run is slow (many minutes on 2 cores).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from eval_scoring import dense_ranking as _dense_ranking  # noqa: E402
from fetch_eval_docs import ALL_DOCS, DATA_DIR, FetchError, fetch  # noqa: E402

from docai.answer.conversation import Conversation, Turn  # noqa: E402
from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.answer.reading import Settled, joined_question, reading_for, settle  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking  # noqa: E402
from docai.retrieval.embedders import BundledE5  # noqa: E402
from docai.retrieval.evaluation import Gold, Outcome, Question, Scores, Summary  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
from docai.retrieval.verdict import (  # noqa: E402
    Fallback,
    NotCovered,
    Passages,
    Verdict,
    retrieve,
    search,
)
from docai.settings import Settings  # noqa: E402

FOLLOWUPS = ROOT / "tests/eval/followups.jsonl"
CONVERSATIONS = ROOT / "tests/eval/conversations.jsonl"
CONVERSATIONS_2 = ROOT / "tests/eval/conversations2.jsonl"
CONVERSATIONS_3 = ROOT / "tests/eval/conversations3.jsonl"
CONVERSATIONS_4 = ROOT / "tests/eval/conversations4.jsonl"
CONVERSATIONS_5 = ROOT / "tests/eval/conversations5.jsonl"
# Each set on its own after the pooled table: the later ones were written blind before the
# change they first measured (docs/evaluation.md).
LATER_SETS = (CONVERSATIONS, CONVERSATIONS_2, CONVERSATIONS_3, CONVERSATIONS_4, CONVERSATIONS_5)
TOP_K = Settings().top_k
MAX_FILE_TOKENS = prompt_budget(Settings().num_ctx)  # what `docai ask` passes
MAX_GAP = 0.05  # issue 23: follow-ups within 0.05 hit@3 of the same questions standalone
MIN_SWITCHES_AS_FRESH = 0.95  # issue 23: topic switches retrieved as in a fresh session


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    docs: str
    before: tuple[str, ...]  # the earlier questions, oldest first
    followup: str
    standalone: str
    gold: tuple[Gold, ...]
    kind: str
    lang: str

    def as_question(self, text: str) -> Question:
        return Question(self.id, text, self.gold, self.kind, self.lang)


def in_context(pair: Pair, index: SearchIndex, dense: DenseRanking | None) -> Settled:
    """What the REPL retrieves for the follow-up after the earlier questions, each asked in
    turn as the REPL asks it (a turn keeps no answer: retrieval reads questions, and
    whether each was refused)."""
    conversation = Conversation()
    for question in (*pair.before, pair.followup):
        settled = settle(index, reading_for(question, conversation), TOP_K, dense=dense,
                         max_file_tokens=MAX_FILE_TOKENS)
        refused = isinstance(settled.verdict, NotCovered)
        conversation = conversation.add(Turn(question, refused=refused))
    return settled


# What each way of retrieving a follow-up reads for its pair (given the index and the dense
# ranking: the REPL's reading depends on what the conversation's reading finds).
Method = Callable[[Pair, SearchIndex, "DenseRanking | None"], "str | Settled"]
METHODS: tuple[tuple[str, Method], ...] = (
    ("bare", lambda pair, index, dense: pair.followup),
    ("joined", lambda pair, index, dense: joined_question(pair.followup, pair.before)),
    ("in context", in_context),
    ("standalone", lambda pair, index, dense: pair.standalone),
)


def load_pairs(path: Path) -> list[Pair]:
    """The pairs of `followups.jsonl` (`first`, `followup`) or `conversations.jsonl`
    (`before`, `question`)."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        before = tuple(record["before"]) if "before" in record else (record["first"],)
        pairs.append(Pair(
            record["id"], record["docs"], before, record.get("followup", record.get("question")),
            record["standalone"], tuple(Gold(g["source"], g["answer"]) for g in record["gold"]),
            record["kind"], record["lang"],
        ))
    return pairs


def docs_path(name: str) -> Path:
    return ROOT / name if (ROOT / name).is_dir() and "/" in name else DATA_DIR / name


@dataclass(frozen=True, slots=True)
class Checks:
    """Topic switches retrieved as fresh, and follow-ups refused whose standalone form is not."""

    switches: int = 0
    switches_as_fresh: int = 0
    wrongly_refused: tuple[str, ...] = ()

    def add(self, other: Checks) -> Checks:
        return Checks(self.switches + other.switches,
                      self.switches_as_fresh + other.switches_as_fresh,
                      self.wrongly_refused + other.wrongly_refused)


def _verdict_identity(verdict: Verdict) -> tuple[object, ...]:
    if isinstance(verdict, Passages):
        return ("passages", *((hit.chunk.source, hit.chunk.ordinal) for hit in verdict.hits))
    if isinstance(verdict, Fallback):
        return ("fallback", verdict.source)
    return ("not covered",)


def checks(index: SearchIndex, pairs: Sequence[Pair], dense: DenseRanking | None) -> Checks:
    found = Checks()
    for pair in pairs:
        followed = in_context(pair, index, dense).verdict
        alone = retrieve(index, pair.standalone, TOP_K, dense=dense,
                         max_file_tokens=MAX_FILE_TOKENS)
        switch = pair.kind == "switch"
        fresh = _verdict_identity(followed) == _verdict_identity(alone)
        refused = (isinstance(followed, NotCovered) and not isinstance(alone, NotCovered)
                   and bool(pair.gold))
        found = found.add(Checks(int(switch), int(switch and fresh),
                                 (pair.id,) if refused else ()))
    return found


def outcome(
    index: SearchIndex, pair: Pair, method: Method, dense: DenseRanking | None = None,
) -> Outcome:
    """How the follow-up fares retrieved as `method` reads it (ranked to depth, and the
    verdict with the default bars), re-ranked by `dense` when given."""
    read = method(pair, index, dense)
    if isinstance(read, Settled):  # one ranking, its verdict settled with the conversation
        hits = search(index, read.reading.query, evaluation.DEPTH, 0.0, dense)
        verdict = read.verdict
    else:
        hits = search(index, read, evaluation.DEPTH, 0.0, dense)
        verdict = retrieve(index, read, TOP_K, dense=dense, max_file_tokens=MAX_FILE_TOKENS)
    question = pair.as_question(pair.followup)
    refused = isinstance(verdict, NotCovered)
    chunks = [] if refused else [hit.chunk for hit in hits]
    return Outcome(question, evaluation.first_hit_rank(question, chunks), refused,
                   isinstance(verdict, Fallback))


def main(argv: Sequence[str] = ()) -> int:
    report_only = "--report-only" in argv
    embedder = BundledE5() if "--dense" in argv else None
    started = time.perf_counter()
    pairs = load_pairs(FOLLOWUPS) + [p for later in LATER_SETS for p in load_pairs(later)]
    outcomes: dict[str, list[Outcome]] = {name: [] for name, _ in METHODS}
    found = Checks()
    for name in sorted({pair.docs for pair in pairs}):
        docs = docs_path(name)
        try:
            for fetched in ALL_DOCS:
                if fetched.target == docs:
                    fetch(fetched)
        except FetchError as error:
            print(f"eval_followups: cannot fetch the {name} docs: {error}", file=sys.stderr)
            return 1
        settings = Settings(docs_dir=docs, cache_dir=DATA_DIR / "cache")
        index, report = open_index(settings)
        group = [pair for pair in pairs if pair.docs == name]
        print(f"{name}: {len(group)} pairs over {report.files} files, {report.chunks} chunks")
        problems = evaluation.check_gold([p.as_question(p.followup) for p in group], index.chunks)
        if problems:
            print("\n".join(problems) + f"\nFAILED: {name}: gold answers not in the docs")
            return 1
        dense = (None if embedder is None
                 else _dense_ranking(settings, index, embedder, DEFAULT_PARAMS, full=False))
        for method_name, method in METHODS:
            outcomes[method_name] += [outcome(index, pair, method, dense) for pair in group]
        found = found.add(checks(index, group, dense))
        if dense is not None:
            dense.save()
    summaries = {name: evaluation.summarise(found) for name, found in outcomes.items()}
    print_table(summaries)
    for later in (FOLLOWUPS, *LATER_SETS):
        ids = {pair.id for pair in load_pairs(later)}
        print(f"\n{later.name} alone:")
        print_table({name: evaluation.summarise([o for o in found if o.question.id in ids])
                     for name, found in outcomes.items()})
    if embedder is not None:
        print(f"(dense default, {embedder.name}: {time.perf_counter() - started:.0f} s, "
              "loading the model and embedding the candidates it lacks included)")
    followed = summaries["in context"].overall.hit_at(3)
    target = summaries["standalone"].overall.hit_at(3)
    as_fresh = found.switches_as_fresh / max(found.switches, 1)
    print(f"\ntopic switches retrieved as in a fresh session: {found.switches_as_fresh} of "
          f"{found.switches} ({as_fresh:.0%})")
    print(f"follow-ups refused although their standalone form is answered: "
          f"{len(found.wrongly_refused)} {' '.join(found.wrongly_refused)}".rstrip())
    missed = []
    if followed < target - MAX_GAP:
        missed.append(f"follow-ups in context hit@3 {followed:.2f} is more than {MAX_GAP:.2f} "
                      f"below the standalone questions' {target:.2f}")
    if as_fresh < MIN_SWITCHES_AS_FRESH:
        missed.append(f"only {as_fresh:.0%} of the topic switches are retrieved as fresh "
                      f"(target {MIN_SWITCHES_AS_FRESH:.0%})")
    if found.wrongly_refused:
        missed.append(f"{len(found.wrongly_refused)} follow-up(s) wrongly refused")
    if missed:
        if report_only:
            print("\nTargets missed (not enforced: --report-only): " + "; ".join(missed))
            return 0
        print("\nFAILED: " + "; ".join(missed))
        return 1
    print(f"\nTargets met: in context {followed:.2f} vs standalone {target:.2f} hit@3 "
          f"(at most {MAX_GAP:.2f} below), switches as fresh, no follow-up wrongly refused.")
    return 0


def print_table(summaries: dict[str, Summary]) -> None:
    """hit@3 / MRR@10 of each method, overall, by language and by kind; refusals."""
    first = next(iter(summaries.values()))
    groups: list[tuple[str, Callable[[Summary], Scores | None]]] = [
        ("all", lambda s: s.overall)
    ]
    groups += [(f"lang {n}", _group(n, "by_lang")) for n, _ in first.by_lang]
    groups += [(f"kind {n}", _group(n, "by_type")) for n, _ in first.by_type]
    print(f"\n{'hit@3 / MRR@10':<18}" + "".join(f"{name:>16}" for name in summaries))
    for label, pick in groups:
        cells = []
        for summary in summaries.values():
            scores = pick(summary)
            cells.append("-" if scores is None else f"{scores.hit_at(3):.2f} / {scores.mrr:.2f}")
        count = pick(first)
        size = f" ({count.questions})" if count is not None else ""
        print(f"{label + size:<18}" + "".join(f"{cell:>16}" for cell in cells))
    print(f"{'refused, fallback':<18}" + "".join(
        f"{s.refusals.covered_refused:>11}, {s.refusals.covered_fallback:<3}"
        for s in summaries.values()))
    if first.refusals.uncovered:
        print(f"{'uncovered refused':<18}" + "".join(
            f"{s.refusals.uncovered_refused:>11} of {s.refusals.uncovered:<2}"
            for s in summaries.values()))


def _group(name: str, field: str) -> Callable[[Summary], Scores | None]:
    return lambda summary: dict(getattr(summary, field)).get(name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
