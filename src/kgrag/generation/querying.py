"""What ``ws.querying`` runs: retrieve context, answer questions, compare pipelines, list pipelines with
what each needs, over a workspace's parts (:class:`QueryParts`: its query context, config, store and
registries, passed in by the workspace)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kgrag.core.context import RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.core.index_state import unfinished_line
from kgrag.core.llm_types import StreamSink
from kgrag.documents.records import unicode_text
from kgrag.generation.conversation import ConversationParts
from kgrag.generation.recipes import ANSWER_STRATEGIES
from kgrag.generation.respond import QueryResponse, respond
from kgrag.generation.respond import context_only as context_only_response
from kgrag.retrieval import Pipeline, build_pipeline
from kgrag.retrieval.listing import PipelineInfo, describe_pipelines
from kgrag.retrieval.resources.graph import GRAPH_COUNTS
from kgrag.retrieval.resources.stored import VECTOR_COUNT

if TYPE_CHECKING:
    from kgrag.core.registries import Registries
    from kgrag.core.registry import Registry
    from kgrag.retrieval import PipelineFactory


class QueryParts(ConversationParts, Protocol):
    """The parts a query reads: the query context, config and store, and the workspace's registries
    (its pipelines, and its answer strategies)."""

    @property
    def pipelines(self) -> Registry[PipelineFactory]: ...

    @property
    def registries(self) -> Registries: ...


@dataclass(frozen=True)
class PipelineOutcome:
    """One pipeline's part of a comparison: its response, or the one line saying why it could not answer."""

    pipeline: str
    response: QueryResponse | None = None
    error: str | None = None


class QueryService:
    """Read paths: every query goes through a named pipeline of the workspace's registry."""

    def __init__(self, parts: QueryParts) -> None:
        self._parts = parts

    def pipeline(self, name: str | None = None) -> Pipeline:
        """The named pipeline (default ``retrieval.default_pipeline``), built for this workspace's config."""
        config = self._parts.config
        if name:
            return build_pipeline(self._parts.pipelines, name, config)
        origin = "retrieval.default_pipeline in kgrag.toml or KGRAG_RETRIEVAL__DEFAULT_PIPELINE"
        return build_pipeline(self._parts.pipelines, config.retrieval.default_pipeline, config, origin)

    def shared_preparation(self, pipelines: Sequence[str]) -> Callable[[str], float | None] | None:
        """When any of ``pipelines`` reads vectors: a function that embeds a question into the query
        context's cache (what those pipelines then share) and returns the milliseconds it took; else None.
        Comparisons time it apart so the first pipeline to run a question is not charged for it."""
        if not any("embeddings" in self.pipeline(name).requires for name in pipelines):
            return None
        context = self._parts.query_context

        def embed(question: str) -> float:
            started = time.perf_counter()
            context.embed_query(_question(question))
            return (time.perf_counter() - started) * 1000

        return embed

    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult:
        """Ranked context items with provenance and a trace; the pipeline's requirements are checked first."""
        return self.pipeline(pipeline).run(_question(question), self._parts.query_context, self._k(k))

    def query(
        self,
        question: str,
        pipeline: str | None = None,
        k: int | None = None,
        *,
        context_tokens: int | None = None,
        sink: StreamSink | None = None,
        context_only: bool = False,
    ) -> QueryResponse:
        """Retrieve, then answer with the pipeline's own answer strategy, else the default one (the LLM
        when configured, with citations; else extractive). ``context_tokens`` overrides
        ``generation.context_tokens`` for this query only (a per-request budget). ``sink`` receives the
        answer as it is written (streaming; see :func:`kgrag.generation.respond`). ``context_only``
        retrieves and writes no answer (:func:`kgrag.generation.respond.context_only`)."""
        if context_only:
            return context_only_response(
                self.pipeline(pipeline), self._parts.query_context, _question(question), self._k(k)
            )
        config = None
        if context_tokens is not None:
            _check_context_tokens(context_tokens)
            base = self._parts.config
            config = base.model_copy(
                update={"generation": base.generation.model_copy(update={"context_tokens": context_tokens})}
            )
        ctx = self._parts.query_context
        strategies = self._parts.registries.get(ANSWER_STRATEGIES)
        return respond(
            self.pipeline(pipeline),
            ctx,
            _question(question),
            self._k(k),
            config=config,
            strategies=strategies,
            sink=sink,
        )

    def compare(
        self,
        question: str,
        pipelines: Sequence[str],
        k: int | None = None,
        *,
        context_tokens: int | None = None,
    ) -> list[PipelineOutcome]:
        """The same question answered by each pipeline, in order, each name once (answers, citations,
        context tokens and cost side by side: ``kgrag compare``, the server's ``/compare``). A pipeline
        that cannot answer here (an unknown name, a missing graph or community reports) gets its error
        line instead of a response, and the others still answer; an empty question, no name, a bad ``k``
        or ``context_tokens`` and an empty workspace fail before any pipeline runs."""
        names = list(dict.fromkeys(name.strip() for name in pipelines if name.strip()))
        if not names:
            raise KgragError("name at least one pipeline to compare (see `kgrag pipelines`)")
        text, k = _question(question), self._k(k)
        _check_context_tokens(context_tokens)
        self.require_chunks()
        outcomes = []
        for name in names:
            try:
                response = self.query(text, name, k, context_tokens=context_tokens)
            except KgragError as exc:  # one pipeline missing its graph must not hide the others' answers
                outcomes.append(PipelineOutcome(name, error=str(exc)))
                continue
            outcomes.append(PipelineOutcome(name, response=response))
        return outcomes

    def pipelines(self) -> list[PipelineInfo]:
        """Every registered pipeline with its origin, description and which requirements are met here."""
        return describe_pipelines(self._parts.pipelines, self._parts.query_context)

    def require_chunks(self) -> None:
        """Queries on an empty workspace fail with what to do instead of returning nothing."""
        if self._parts.store.chunks.count() == 0:
            raise KgragError("the workspace has no indexed documents yet; run `kgrag index PATH` first")

    def unfinished(self) -> str | None:
        """One line when a stopped run left documents behind the others (:mod:`kgrag.core.index_state`)."""
        ctx = self._parts.query_context
        by_status = self._parts.store.documents.count_by_status()
        counts = ctx.get(GRAPH_COUNTS)  # once per store generation, not per query
        return unfinished_line(by_status, ctx.get(VECTOR_COUNT), counts["entities"], counts.get("chunks_failed", 0))

    def _k(self, k: int | None) -> int:
        if k is not None and k < 1:
            raise KgragError(f"k must be at least 1 (got {k})")
        return k or self._parts.config.retrieval.k


def _check_context_tokens(context_tokens: int | None) -> None:
    if context_tokens is not None and context_tokens < 1:
        raise KgragError(f"context_tokens must be at least 1 (got {context_tokens})")


def _question(text: str) -> str:
    """The question as text: bytes that were not valid UTF-8 on the command line arrive as lone
    surrogates and become U+FFFD (a tokenizer or the database would fail on them); an empty question
    is the user's mistake, not a search for nothing."""
    cleaned = unicode_text(text)
    if not cleaned.strip():
        raise KgragError('the question is empty; pass the text to search for, e.g. kgrag query "what treats pain?"')
    return cleaned
