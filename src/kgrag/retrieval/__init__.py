"""Retrieval: context items with provenance, reusable steps, named pipelines and the typed query context."""

from kgrag.core.context import ContextItem, RetrievalResult, TraceStep
from kgrag.retrieval.pipelines import Pipeline, PipelineFactory, build_pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.rerank import Reranker, WordOverlapReranker

__all__ = [
    "ContextItem",
    "Pipeline",
    "PipelineFactory",
    "QueryContext",
    "Reranker",
    "RetrievalResult",
    "TraceStep",
    "WordOverlapReranker",
    "build_pipeline",
]
