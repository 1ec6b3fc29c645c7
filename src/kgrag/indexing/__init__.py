"""Indexing: the resumable, incremental path from files to searchable chunks."""

from kgrag.core.progress import Progress, SilentProgress
from kgrag.indexing.indexer import remove_documents, run_index
from kgrag.indexing.ingest import ChunkPlan
from kgrag.indexing.report import FileProblem, IndexReport

__all__ = ["ChunkPlan", "FileProblem", "IndexReport", "Progress", "SilentProgress", "remove_documents", "run_index"]
