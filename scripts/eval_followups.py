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

from eval import _dense_ranking  # noqa: E402
from fetch_eval_docs import ALL_DOCS, DATA_DIR, FetchError, fetch  # noqa: E402

from docai.answer.followup import joined_question, query_in_context  # noqa: E402
from docai.answer.prompt import prompt_budget  # noqa: E402
from docai.retrieval import evaluation  # noqa: E402
from docai.retrieval.dense import DenseRanking  # noqa: E402
from docai.retrieval.embedders import BundledE5  # noqa: E402
from docai.retrieval.evaluation import Gold, Outcome, Question, Scores, Summary  # noqa: E402
from docai.retrieval.params import DEFAULT_PARAMS  # noqa: E402
from docai.retrieval.search_index import SearchIndex, open_index  # noqa: E402
from docai.retrieval.verdict import Fallback, NotCovered, Query, retrieve, search  # noqa: E402
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


# What each way of retrieving a follow-up reads for its pair.
METHODS: tuple[tuple[str, Callable[[Pair], str | Query]], ...] = (
    ("bare", lambda pair: pair.followup),
    ("joined", lambda pair: joined_question(pair.followup, (pair.first,))),
    ("in context", lambda pair: query_in_context(pair.followup, (pair.first,))),
    ("standalone", lambda pair: pair.standalone),
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


def outcome(
    index: SearchIndex, pair: Pair, method: Callable[[Pair], str | Query],
    dense: DenseRanking | None = None,
) -> Outcome:
    """How the follow-up fares retrieved as `method` reads it (ranked to depth, and the
    verdict with the default bars), re-ranked by `dense` when given."""
    read = method(pair)
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
        if dense is not None:
            dense.save()
    summaries = {name: evaluation.summarise(found) for name, found in outcomes.items()}
    print_table(summaries)
    if embedder is not None:
        print(f"(dense default, {embedder.name}: {time.perf_counter() - started:.0f} s, "
              "loading the model and embedding the candidates it lacks included)")
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
