"""Indexing: the resumable, incremental path from files to searchable chunks, as named stages.

An indexing run is a pipeline (``indexing.pipeline``: an ordered list of stage names) run by
:func:`run_pipeline` over one :class:`IndexContext`; see :mod:`kgrag.indexing.stages`.
"""

from kgrag.core.progress import Progress, SilentProgress
from kgrag.indexing.context import IndexContext
from kgrag.indexing.ingest import ChunkPlan
from kgrag.indexing.registries import IndexRegistries
from kgrag.indexing.remove import remove_documents
from kgrag.indexing.report import FileProblem, IndexReport
from kgrag.indexing.runner import DEFAULT_PIPELINE, pipeline_names, resolve_stages, run_pipeline, run_stages

__all__ = [
    "DEFAULT_PIPELINE",
    "ChunkPlan",
    "FileProblem",
    "IndexContext",
    "IndexRegistries",
    "IndexReport",
    "Progress",
    "SilentProgress",
    "pipeline_names",
    "remove_documents",
    "resolve_stages",
    "run_pipeline",
    "run_stages",
]
