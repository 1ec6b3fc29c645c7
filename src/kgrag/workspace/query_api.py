"""``ws.querying``: retrieve context, answer questions, compare and list pipelines
(:class:`kgrag.generation.querying.QueryService`)."""

from __future__ import annotations

from kgrag.generation.querying import PipelineOutcome, QueryService

__all__ = ["PipelineOutcome", "QueryAPI"]


class QueryAPI(QueryService):
    """Read paths over this workspace's parts (built with its ``Components``): every query goes through
    a named pipeline of its registry."""
