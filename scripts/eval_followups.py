"""Follow-up questions: are they retrieved as what they mean in their conversation?

`tests/eval/followups.jsonl` holds conversation pairs written blind (before the conversation
feature): a first question, an elliptical follow-up ("e como eu apago ele?"), the same
follow-up written out as a standalone question, and the follow-up's gold passages; `docs`
is `resources/docs` or a collection of `tests/eval/data/` (fetched like `scripts/eval.py`'s).

For each pair the follow-up is retrieved four ways, scored as `docai eval` scores a question
(hit@k, MRR@10, a wrongly refused question counting as a miss):

- bare:        the follow-up's own words, as docai answered before it kept a conversation;
- joined:      the first question and the follow-up joined into one text, weighing the same
               (the simplest reading in context; shown for comparison);
- in context:  what the REPL does (`docai.answer.followup.retrieve_in_context`): the same
               text with the follow-up's words weighing twice;
- standalone:  the standalone question asked alone: the target.

Exits 1 when "in context" is more than 0.10 hit@3 below "standalone" (issue 15's target),
or when a gold answer is in no chunk of its source; `--report-only` prints without
enforcing the target.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_eval_docs import ALL_DOCS, DATA_DIR, FetchError, fetch  # noqa: E402

from docai.answer.followup import joined_question, query_in_context  # noqa: E402
from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.records import Hit  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.evaluation import Gold, Outcome, Question, Scores, Summary  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
from docai.retrieval.verdict import Fallback, NotCovered, Verdict, retrieve, search  # noqa: E402
from docai.settings import Settings  # noqa: E402

FOLLOWUPS = ROOT / "tests/eval/followups.jsonl"
TOP_K = Settings().top_k
MAX_FILE_TOKENS = prompt_budget(Settings().num_ctx)  # what `docai ask` passes
MAX_GAP = 0.10  # issue 15: follow-ups within 0.10 hit@3 of the same questions standalone


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    docs: str
    first: str
    followup: str
    standalone: str
    gold: tuple[Gold, ...]
    kind: str
    lang: str

    def as_question(self, text: str) -> Question:
        return Question(self.id, text, self.gold, self.kind, self.lang)


# How one method retrieves one pair: (ranking to depth, verdict with the default bars).
Method = Callable[[SearchIndex, Pair], tuple[list[Hit], Verdict]]


def bare(index: SearchIndex, pair: Pair) -> tuple[list[Hit], Verdict]:
    return _alone(index, pair.followup)


def joined(index: SearchIndex, pair: Pair) -> tuple[list[Hit], Verdict]:
    return _alone(index, joined_question(pair.followup, (pair.first,)))


def in_context(index: SearchIndex, pair: Pair) -> tuple[list[Hit], Verdict]:
    query = query_in_context(pair.followup, (pair.first,))
    hits = search(index, query, evaluation.DEPTH, min_coverage=0.0)
    return hits, retrieve(index, query, TOP_K, max_file_tokens=MAX_FILE_TOKENS)


def standalone(index: SearchIndex, pair: Pair) -> tuple[list[Hit], Verdict]:
    return _alone(index, pair.standalone)


def _alone(index: SearchIndex, text: str) -> tuple[list[Hit], Verdict]:
    hits = index.search(text, evaluation.DEPTH, min_coverage=0.0)
    return hits, retrieve(index, text, TOP_K, max_file_tokens=MAX_FILE_TOKENS)


METHODS: tuple[tuple[str, Method], ...] = (
    ("bare", bare), ("joined", joined), ("in context", in_context), ("standalone", standalone),
)


def load_pairs(path: Path) -> list[Pair]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        pairs.append(Pair(
            record["id"], record["docs"], record["first"], record["followup"],
            record["standalone"], tuple(Gold(g["source"], g["answer"]) for g in record["gold"]),
            record["kind"], record["lang"],
        ))
    return pairs


def docs_path(name: str) -> Path:
    return ROOT / name if name == "resources/docs" else DATA_DIR / name


def outcome(index: SearchIndex, pair: Pair, method: Method) -> Outcome:
    hits, verdict = method(index, pair)
    question = pair.as_question(pair.followup)
    refused = isinstance(verdict, NotCovered)
    chunks = [] if refused else [hit.chunk for hit in hits]
    return Outcome(question, evaluation.first_hit_rank(question, chunks), refused,
                   isinstance(verdict, Fallback))


def main(argv: Sequence[str] = ()) -> int:
    report_only = "--report-only" in argv
    pairs = load_pairs(FOLLOWUPS)
    outcomes: dict[str, list[Outcome]] = {name: [] for name, _ in METHODS}
    for name in sorted({pair.docs for pair in pairs}):
        docs = docs_path(name)
        try:
            for fetched in ALL_DOCS:
                if fetched.target == docs:
                    fetch(fetched)
        except FetchError as error:
            print(f"eval_followups: cannot fetch the {name} docs: {error}", file=sys.stderr)
            return 1
        index, report = open_index(Settings(docs_dir=docs, cache_dir=DATA_DIR / "cache"))
        group = [pair for pair in pairs if pair.docs == name]
        print(f"{name}: {len(group)} pairs over {report.files} files, {report.chunks} chunks")
        problems = evaluation.check_gold([p.as_question(p.followup) for p in group], index.chunks)
        if problems:
            print("\n".join(problems) + f"\nFAILED: {name}: gold answers not in the docs")
            return 1
        for method_name, method in METHODS:
            outcomes[method_name] += [outcome(index, pair, method) for pair in group]
    summaries = {name: evaluation.summarise(found) for name, found in outcomes.items()}
    print_table(summaries)
    followed = summaries["in context"].overall.hit_at(3)
    target = summaries["standalone"].overall.hit_at(3)
    if followed < target - MAX_GAP:
        message = (f"follow-ups in context hit@3 {followed:.2f} is more than {MAX_GAP:.2f} "
                   f"below the standalone questions' {target:.2f}")
        if report_only:
            print(f"\nTarget missed (not enforced: --report-only): {message}")
            return 0
        print(f"\nFAILED: {message}")
        return 1
    print(f"\nTarget met: in context {followed:.2f} vs standalone {target:.2f} hit@3 "
          f"(at most {MAX_GAP:.2f} below).")
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


def _group(name: str, field: str) -> Callable[[Summary], Scores | None]:
    return lambda summary: dict(getattr(summary, field)).get(name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
