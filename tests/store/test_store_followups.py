"""A question read in its conversation settles the same over the shared store as over the
local index: one ranking of the store's candidates, judged on the joined text and then on
the question's own words. Against a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from docai.answer.conversation import Conversation, Turn
from docai.answer.reading import Reading, reading_for, settle
from docai.retrieval.search_index import SearchIndex, open_index
from docai.retrieval.verdict import NotCovered, Passages
from docai.settings import Settings
from docai.store.search import StoreIndex
from tests.answer.conversation_docs import DOCS, FIRST, FOLLOWUP, SWITCH
from tests.store.test_store_cli import index as index_in_store
from tests.support.sample_docs import write_docs

HISTORY = "Como apagar o histórico de perguntas?"  # answered by historico.md
TAKEN_FOR_A_FOLLOW_UP = "e qual é o padrão de --num-ctx dele?"  # judged on its own words


def settled(index: SearchIndex | StoreIndex, reading: Reading) -> tuple[object, ...]:
    outcome = settle(index, reading, 1)  # type: ignore[arg-type]
    verdict = outcome.verdict
    found = ([(h.chunk.source, h.chunk.ordinal, h.score) for h in verdict.hits]
             if isinstance(verdict, Passages) else verdict)
    return found, outcome.judged


def test_a_follow_up_settles_on_the_store_as_on_the_local_index(
    home: Path, store_url: str
) -> None:
    docs = write_docs(home / "docs", DOCS)
    index_in_store(home, store_url, docs)
    local, _ = open_index(Settings(docs_dir=docs, cache_dir=home / "cache", dense=False))
    shared = StoreIndex(store_url, "docs", docs_dir=docs)
    answered = Conversation((Turn(FIRST, "Resposta."), Turn(HISTORY, "Resposta.")))
    readings = [
        reading_for(FOLLOWUP, Conversation((Turn(FIRST, "Resposta."),))),
        reading_for(TAKEN_FOR_A_FOLLOW_UP, Conversation((Turn(HISTORY, "Resposta."),))),
        reading_for(TAKEN_FOR_A_FOLLOW_UP, Conversation((Turn("Como uso o zorblax?",
                                                               refused=True),))),
        reading_for(SWITCH, answered),
    ]
    outcomes = [settled(shared, reading) for reading in readings]
    assert outcomes == [settled(local, reading) for reading in readings]
    assert outcomes[1][1] == TAKEN_FOR_A_FOLLOW_UP  # the own words answered it
    assert outcomes[2][0] == NotCovered()  # not after a subject the docs never mention
    shared.close()
