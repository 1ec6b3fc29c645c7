"""Retrieval: context items with provenance, reusable steps and named pipelines."""

from kgrag.retrieval.pipelines import Pipeline, PipelineRegistry, builtin_registry
from kgrag.retrieval.types import ContextItem, RetrievalResult, TraceStep

__all__ = ["ContextItem", "Pipeline", "PipelineRegistry", "RetrievalResult", "TraceStep", "builtin_registry"]
