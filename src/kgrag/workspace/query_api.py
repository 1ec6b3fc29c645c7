"""``ws.querying``: retrieve context, answer questions, list pipelines with what each needs."""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.core.context import RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.generation import QueryResponse, respond
from kgrag.retrieval import Pipeline, build_pipeline
from kgrag.retrieval.listing import PipelineInfo, describe_pipelines
from kgrag.workspace.components import Components


class QueryAPI:
    """Read paths: every query goes through a named pipeline of this workspace's registry."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def pipeline(self, name: str | None = None) -> Pipeline:
        """The named pipeline (default ``retrieval.default_pipeline``), built for this workspace's config."""
        config = self._parts.config
        return build_pipeline(self._parts.pipelines, name or config.retrieval.default_pipeline, config)

    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult:
        """Ranked context items with provenance and a trace; the pipeline's requirements are checked first."""
        return self.pipeline(pipeline).run(question, self._parts.query_context, self._k(k))

    def query(self, question: str, pipeline: str | None = None, k: int | None = None) -> QueryResponse:
        """Retrieve, then answer with the pipeline's own answer strategy, else the default one (the LLM
        when configured, with citations; else extractive)."""
        return respond(self.pipeline(pipeline), self._parts.query_context, question, self._k(k))

    def compare(self, question: str, pipelines: Sequence[str], k: int | None = None) -> list[QueryResponse]:
        """The same question answered by each pipeline, in order (answers, citations, context tokens and
        cost side by side: ``kgrag compare``). Unknown names fail before any pipeline runs."""
        if not pipelines:
            raise KgragError("name at least one pipeline to compare (see `kgrag pipelines`)")
        built = [self.pipeline(name) for name in pipelines]
        self.require_chunks()
        return [respond(p, self._parts.query_context, question, self._k(k)) for p in built]

    def pipelines(self) -> list[PipelineInfo]:
        """Every registered pipeline with its origin, description and which requirements are met here."""
        return describe_pipelines(self._parts.pipelines, self._parts.query_context)

    def require_chunks(self) -> None:
        """Queries on an empty workspace fail with what to do instead of returning nothing."""
        if self._parts.store.chunks.count() == 0:
            raise KgragError("the workspace has no indexed documents yet; run `kgrag index PATH` first")

    def _k(self, k: int | None) -> int:
        if k is not None and k < 1:
            raise KgragError(f"k must be at least 1 (got {k})")
        return k or self._parts.config.retrieval.k
