"""Where the stages' pure compute runs: the seam between an indexing stage and an indexing engine.

A stage does two kinds of work: deciding what is missing and writing results to the store (cheap, and
only the store's owner may do it), and turning inputs into outputs with no store in sight (reading and
chunking files, extracting chunks, embedding texts: the expensive part). The stages call the second kind
through :class:`StageCompute`, held by the run's context, so an engine changes *where* that work runs
(this process, or Ray workers) without a second copy of any stage. :class:`LocalCompute` is the local
engine's: everything inline, exactly what the stages did before engines existed.

Contract for every implementation (the Ray engine's tests hold it to this): results come back in input
order and equal what the inline computation gives, so the index is the same whichever engine built it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from kgrag.config import DocumentsConfig
from kgrag.core.registry import Registry
from kgrag.documents import Loader
from kgrag.graph.types import Extractor
from kgrag.indexing.prepare import ChunkPlan, PreparedFile, load_file
from kgrag.indexing.report import IndexReport
from kgrag.models.embed_blocks import embed_inline
from kgrag.models.embeddings import Embedder


class StageCompute(Protocol):
    """The pure-compute steps of the built-in stages; ``name`` is the engine's, for notes and reports."""

    name: str

    def prepare(self, files: Sequence[Path], cfg: DocumentsConfig, plan: ChunkPlan) -> Iterator[PreparedFile]:
        """One :class:`PreparedFile` per file of ``files``, in order (a generator: read as consumed)."""
        ...

    def embed(self, embedder: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
        """Vectors of ``texts`` in order, as consecutive blocks of rows (sizes are the engine's choice)."""
        ...

    def extractor(self, extractor: Extractor) -> Extractor:
        """``extractor`` itself or one that gives the same extractions computed elsewhere."""
        ...


def timed_blocks(blocks: Iterator[np.ndarray], report: IndexReport, key: str) -> Iterator[np.ndarray]:
    """``blocks`` as they come, with the wait for each added to ``report`` under ``key``: the model time of
    a stage wherever the engine runs the model (inline, or Ray actors whose results arrive here)."""
    while True:
        started = time.perf_counter()
        try:
            vectors = next(blocks)
        except StopIteration:
            return
        finally:
            report.add_time(key, time.perf_counter() - started)
        yield vectors


class LocalCompute:
    """Everything in this process, one item after the other: the local engine (reading files with the
    workspace's ``loaders``; default: built-ins and plug-ins)."""

    name = "local"

    def __init__(self, loaders: Registry[Loader] | None = None) -> None:
        self.loaders = loaders

    def prepare(self, files: Sequence[Path], cfg: DocumentsConfig, plan: ChunkPlan) -> Iterator[PreparedFile]:
        """Loads each file when the stage asks for it; chunking waits until the stage knows which
        documents changed (an unchanged record of a touched JSON file is never chunked)."""
        for path in files:
            yield load_file(path, cfg, self.loaders)

    def embed(self, embedder: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
        return embed_inline(embedder, texts, batch_size)

    def extractor(self, extractor: Extractor) -> Extractor:
        return extractor
