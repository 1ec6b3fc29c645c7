"""Retrieval: context items with provenance, reusable steps and named pipelines."""

from kgrag.core.context import ContextItem, RetrievalResult, TraceStep
from kgrag.retrieval.pipelines import Pipeline, PipelineRegistry, builtin_registry

__all__ = ["ContextItem", "Pipeline", "PipelineRegistry", "RetrievalResult", "TraceStep", "builtin_registry"]
