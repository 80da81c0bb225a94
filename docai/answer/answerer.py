"""Answer one question: retrieve, build the prompt, stream the model, with bounded caches.

`Answerer.answer(question)` yields events and never prints, so the REPL and `docai ask` render
the same behaviour in their own way. The decisions live here:

- the retrieval verdict (`docai.retrieval.verdict`) is `Passages` -> answer from them;
- it is `Fallback`: no passage clears the bar but one file covers the question -> answer
  from that whole file (shortened to the budget) and say it is a fallback;
- it is `NotCovered` -> say the docs do not cover it, without calling the model at all;
- the model fails before saying anything, or ends without a word of answer (it only
  reasoned) -> hand back the best passages (extractive answer) with the error, whose
  message says what to do;
- a model without reasoning support -> retry once without `think`, and remember it.

In the REPL a question comes with its `Conversation`: it is read and retrieved as
`reading.py` decides (alone, or with the earlier questions it leans on) and the model gets
the earlier exchanges (`prompt.py`); `docai ask` passes none, so it stays one-shot.

Caches are instance attributes (no module state) and keyed on the index fingerprint, so a
changed index can never serve a stale retrieval or answer. Each is keyed on what changes its
result: a retrieval on the reading of the question, an answer on every message
sent (the history included), so a follow-up never replays an answer given in another
conversation. `fresh` (`/denovo`) skips the answer cache, not the retrieval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cachetools import LRUCache

from docai import messages
from docai.answer.conversation import Conversation
from docai.answer.prompt import Prompt, build_fallback_prompt, build_prompt, prompt_budget
from docai.answer.reading import Reading, reading_for, settle
from docai.byte_text import key_bytes
from docai.folders import file_inside
from docai.llm.base import ChatBackend
from docai.llm.errors import EmptyAnswer, LLMError, ThinkingUnsupported
from docai.llm.events import LENGTH, Done, TextDelta, ThinkingDelta
from docai.loading import load_file
from docai.records import Hit, join_heading
from docai.retrieval.verdict import Fallback, NotCovered, Passages, Verdict, retrieve
from docai.settings import Settings

if TYPE_CHECKING:
    from docai.retrieval.dense import DenseRanking
    from docai.retrieval.search_index import SearchIndex

RETRIEVAL_CACHE_SIZE = 256
ANSWER_CACHE_SIZE = 64
# prompt_eval_count below this share of what we sent means the server dropped part of the
# prompt. Far below (under the floor) it rather means the server reused its prompt cache and
# only counted the new tokens, which is no reason to alarm anyone.
TRUNCATION_RATIO = 0.5
TRUNCATION_FLOOR = 0.1


@dataclass(frozen=True, slots=True)
class Retrieved:
    """The passages sent to the model, in prompt order: `hits[n - 1]` is cited as [n]."""

    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class CacheReplay:
    """The answer that follows is replayed from the cache, not generated again."""


@dataclass(frozen=True, slots=True)
class AnswerWarning:
    """Something the user should know about this answer (already a pt-BR sentence)."""

    message: str


@dataclass(frozen=True, slots=True)
class ModelFailed:
    """The model could not answer. `passages` (best first) stand in for the answer when the
    failure came before any output; they are empty when part of the answer was already shown."""

    error: LLMError
    passages: tuple[Hit, ...]


AnswerEvent = (
    Retrieved
    | Fallback
    | NotCovered
    | CacheReplay
    | AnswerWarning
    | ThinkingDelta
    | TextDelta
    | Done
    | ModelFailed
)


@dataclass(frozen=True, slots=True)
class _Recorded:
    thinking: str
    text: str
    done: Done


def retrieve_as_configured(
    index: SearchIndex, question: str, settings: Settings, dense: DenseRanking | None = None
) -> Verdict:
    """`retrieve` as `docai ask` and `docai eval` run it: the user's k and bar, and a
    fallback file no longer than the prompt of `settings.num_ctx` can hold (the prompt's
    budget is this stage's knowledge, so retrieval is handed a number)."""
    return retrieve(
        index, question, settings.top_k, settings.min_coverage,
        dense=dense, max_file_tokens=prompt_budget(settings.num_ctx),
    )


def normalise_question(question: str) -> str:
    """The retrieval cache's identity of a question: spacing does not change what is
    retrieved, but case does ("VS Code" is a name, "vs code" is two everyday words)."""
    return " ".join(question.split())


class Answerer:
    """Answers questions about one index with one backend; owns the session's caches."""

    def __init__(
        self,
        index: SearchIndex,
        backend: ChatBackend,
        settings: Settings,
        dense: DenseRanking | None = None,
    ) -> None:
        self._index = index
        self._dense = dense
        self._backend = backend
        self._settings = settings
        self._think = settings.think
        self._retrievals: LRUCache[tuple[object, ...], Verdict] = LRUCache(
            RETRIEVAL_CACHE_SIZE
        )
        self._answers: LRUCache[tuple[object, ...], _Recorded] = LRUCache(ANSWER_CACHE_SIZE)

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def index(self) -> SearchIndex:
        return self._index

    @property
    def backend(self) -> ChatBackend:
        return self._backend

    @property
    def dense(self) -> DenseRanking | None:
        return self._dense

    def replace_index(self, index: SearchIndex, dense: DenseRanking | None = None) -> None:
        """Use a rebuilt index; cached results of the old one are dropped, not just shadowed."""
        if self._dense is not None and self._dense is not dense:
            self._dense.embedder.close()
        self._index = index
        self._dense = dense
        self._retrievals.clear()
        self._answers.clear()

    def reconfigure(self, settings: Settings, backend: ChatBackend) -> None:
        """New k or model mid-session. Cache keys include both, so the caches stay valid."""
        if backend is not self._backend:
            self._backend.close()
        self._backend = backend
        if settings.model != self._settings.model or settings.think != self._settings.think:
            self._think = settings.think
        self._settings = settings

    def close(self) -> None:
        """Close the model server's client and the embedder, saving the vectors the
        answers embedded (after the answers, so none waited for the write)."""
        self._backend.close()
        if self._dense is not None:
            self._dense.save()
            self._dense.embedder.close()

    def answer(
        self, question: str, conversation: Conversation | None = None, *, fresh: bool = False
    ) -> Generator[AnswerEvent, None, None]:
        """Events for one question, in order: Retrieved | Fallback | NotCovered, then
        warnings, then (CacheReplay,) thinking/text deltas and Done, or ModelFailed.

        `conversation` (the REPL's turns so far) makes it a follow-up; `fresh` generates the
        answer again even when the same prompt was answered before (`/denovo`).

        Lazy: nothing happens until iteration starts; closing the generator (Ctrl-C) closes
        the model's stream, so the server stops generating.
        """
        conversation = conversation or Conversation()
        verdict = self._retrieve(reading_for(question.strip(), conversation))
        history = conversation.history_for(question)
        if isinstance(verdict, Passages):
            prompt = build_prompt(
                question,
                verdict.hits,
                num_ctx=self._settings.num_ctx,
                encoding=self._settings.chunking.encoding,
                history=history,
                instructions=self._settings.system_prompt,
            )
            yield Retrieved(prompt.used_hits)
            extractive = verdict.hits
        elif isinstance(verdict, Fallback) and (content := self._file_content(verdict.source)):
            prompt = build_fallback_prompt(
                question,
                verdict.source,
                content,
                num_ctx=self._settings.num_ctx,
                encoding=self._settings.chunking.encoding,
                history=history,
                instructions=self._settings.system_prompt,
            )
            yield verdict
            extractive = self._first_passage(verdict.source)
        else:
            yield NotCovered()
            return
        yield from self._budget_warnings(prompt, len(extractive))
        yield from self._generate(prompt, extractive, fresh=fresh)

    def _retrieve(self, reading: Reading) -> Verdict:
        settings = self._settings
        key = (
            self._index.fingerprint,
            normalise_question(reading.question),
            tuple(normalise_question(earlier) for earlier in reading.context),
            reading.own_words_may_answer,
            settings.top_k,
            settings.min_coverage,
            settings.retrieval,
            settings.num_ctx,  # bounds the fallback file (`max_file_tokens`)
        )
        cached = self._retrievals.get(key)
        if cached is not None:
            return cached
        verdict = settle(
            self._index, reading, settings.top_k, settings.min_coverage,
            dense=self._dense, max_file_tokens=prompt_budget(settings.num_ctx),
        ).verdict
        self._retrievals[key] = verdict
        return verdict

    def _file_content(self, source: str) -> str:
        """The fallback file's text, heading lines included, or "" if it can no longer be read."""
        if (stored := self._index.file_text(source)) is not None:
            return stored
        root, link_roots = self._settings.docs_dir, self._settings.link_roots()
        if file_inside(root, source, link_roots) is None:  # a name no walk of root gives
            return ""
        document = load_file(root, root / source, link_roots=link_roots).document
        if document is None:
            return ""
        parts = []
        for section in document.sections:
            heading = join_heading(section.heading_path)
            parts.append(f"{heading}\n{section.text}" if heading else section.text)
        return "\n\n".join(parts)

    def _first_passage(self, source: str) -> tuple[Hit, ...]:
        first = self._index.chunks.first_of(source)
        return (Hit(first, 0.0),) if first is not None else ()

    def _budget_warnings(self, prompt: Prompt, retrieved: int) -> Iterator[AnswerWarning]:
        num_ctx = self._settings.num_ctx
        if prompt.question_truncated:
            yield AnswerWarning(messages.ANSWER_QUESTION_TRUNCATED.format(num_ctx=num_ctx))
        elif prompt.trimmed_passages:
            yield AnswerWarning(
                messages.ANSWER_PASSAGES_TRIMMED.format(
                    count=prompt.trimmed_passages, total=max(retrieved, 1), num_ctx=num_ctx
                )
            )

    def _generate(
        self, prompt: Prompt, extractive: tuple[Hit, ...], *, fresh: bool = False
    ) -> Iterator[AnswerEvent]:
        backend = self._backend
        # Keyed on the prompt as sent, question in its own capitals: `-v` and `-V` are
        # different options, and the model may answer them differently.
        digest = hashlib.sha256(
            key_bytes("\x00".join(f"{m.role}\x00{m.content}" for m in prompt.messages))
        ).hexdigest()
        # `/set` may change what the model is asked with, not only what it is sent.
        settings = self._settings
        options = (settings.num_ctx, settings.temperature, settings.max_tokens, self._think)
        key = (self._index.fingerprint, backend.name, backend.model, digest, options)
        recorded = None if fresh else self._answers.get(key)
        if recorded is not None:
            yield CacheReplay()
            if recorded.thinking:
                yield ThinkingDelta(recorded.thinking)
            yield TextDelta(recorded.text)
            yield recorded.done
            return
        for attempt in range(2):
            thinking: list[str] = []
            text: list[str] = []
            stream = backend.stream_chat(
                prompt.messages,
                think=self._think,
                num_ctx=self._settings.num_ctx,
                temperature=self._settings.temperature,
                max_tokens=self._settings.max_tokens,
            )
            try:
                for event in stream:
                    if isinstance(event, ThinkingDelta):
                        thinking.append(event.text)
                    elif isinstance(event, TextDelta):
                        text.append(event.text)
                    else:
                        if not "".join(text).strip():
                            raise EmptyAnswer(
                                messages.ANSWER_CUT_WHILE_THINKING.format(
                                    max_tokens=self._settings.max_tokens)
                                if event.done_reason == LENGTH else messages.ANSWER_EMPTY
                            )
                        yield from self._truncation_warning(prompt, event)
                        if event.done_reason == LENGTH:
                            yield AnswerWarning(messages.ANSWER_CUT.format(
                                max_tokens=self._settings.max_tokens))
                        self._answers[key] = _Recorded("".join(thinking), "".join(text), event)
                    yield event
                return
            except ThinkingUnsupported as error:
                if attempt or thinking or text:
                    yield ModelFailed(error, ())
                    return
                self._think = None
                if self._settings.show_thinking:  # else the user never asked for reasoning
                    yield AnswerWarning(messages.ANSWER_THINKING_OFF.format(model=backend.model))
            except LLMError as error:
                # Reasoning alone answers nothing: the passages still stand in for the answer.
                yield ModelFailed(error, () if "".join(text).strip() else extractive)
                return
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()

    def _truncation_warning(self, prompt: Prompt, done: Done) -> Iterator[AnswerWarning]:
        seen = done.prompt_eval_count
        sent = prompt.prompt_tokens
        if seen is not None and TRUNCATION_FLOOR * sent <= seen < TRUNCATION_RATIO * sent:
            yield AnswerWarning(
                messages.ANSWER_PROMPT_TRUNCATED.format(
                    seen=seen, sent=sent, num_ctx=self._settings.num_ctx
                )
            )
