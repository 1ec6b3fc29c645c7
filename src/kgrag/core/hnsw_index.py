"""Approximate nearest-neighbour search with faiss-cpu's HNSW graph (the optional ``ann`` extra).

Exact search costs one (n × d) matrix product per query, so its time grows linearly with the corpus and
becomes the larger part of a query at millions of chunks. HNSW answers far faster at a recall that
``bench/bench_ann.py`` measures against exact search in the same run, but costs a one-off build and memory
for the graph links (docs/results/design-measurements.md), hence the size threshold in
:mod:`kgrag.core.vector_index`. faiss is imported lazily; without it :func:`hnsw_index` logs one clear
warning and returns the exact index, so a missing optional package never breaks a query.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

from kgrag.core.dense_index import DenseIndex
from kgrag.core.records import ScoredId
from kgrag.core.vector_index import AnnParams, VectorIndex

log = logging.getLogger(__name__)
INSTALL_HINT = "pip install 'kgrag[ann]' (faiss-cpu)"


def load_faiss() -> Any | None:
    """The faiss module, or None when the optional package is missing (the caller falls back)."""
    try:
        import faiss
    except ImportError:
        return None
    return faiss


class HnswIndex:
    """faiss ``IndexHNSWFlat`` over inner product (cosine of unit vectors) plus the row → id list.

    The vectors live inside the faiss index, so the caller's matrix can be dropped after the build.
    """

    def __init__(self, faiss: Any, ids: list[str], index: Any, params: AnnParams) -> None:
        self.ids = ids
        self.index = index
        self.params = params
        self._faiss = faiss

    @classmethod
    def build(cls, faiss: Any, ids: list[str], matrix: np.ndarray, params: AnnParams) -> HnswIndex:
        index = faiss.IndexHNSWFlat(matrix.shape[1], params.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = params.ef_construction
        index.add(np.ascontiguousarray(matrix, dtype=np.float32))
        return cls(faiss, ids, index, params)

    @classmethod
    def read(cls, faiss: Any, path: Path, ids: list[str], params: AnnParams) -> HnswIndex:
        """A saved index; ``ids`` must be the row order it was built with (the caller checks that)."""
        return cls(faiss, ids, faiss.read_index(str(path)), params)

    def write(self, path: Path) -> None:
        """Save atomically (temporary file, then rename), so a reader never sees half an index."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self._faiss.write_index(self.index, str(tmp))
        os.replace(tmp, path)

    def extend(self, ids: list[str], matrix: np.ndarray) -> None:
        """Append rows (HNSW inserts incrementally; deletions need a rebuild)."""
        self.index.add(np.ascontiguousarray(matrix, dtype=np.float32))
        self.ids = self.ids + ids

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query_vector: np.ndarray, limit: int) -> list[ScoredId]:
        if not self.ids or limit <= 0:
            return []
        limit = min(limit, len(self.ids))
        # Per-call search parameters, not index.hnsw.efSearch: concurrent server queries share the index.
        beam = self._faiss.SearchParametersHNSW(efSearch=max(self.params.ef_search, limit))
        query = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
        scores, rows = self.index.search(query, limit, params=beam)
        return [ScoredId(id=self.ids[r], score=float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0]


def hnsw_index(ids: list[str], matrix: np.ndarray, params: AnnParams) -> VectorIndex:
    """The ``hnsw`` entry of the ``vector_index`` registry; exact search when faiss is missing."""
    faiss = load_faiss()
    if faiss is None or not ids:
        if faiss is None:
            log.warning("faiss is not installed: exact vector search over %d vectors (%s)", len(ids), INSTALL_HINT)
        return DenseIndex(ids, matrix)
    return HnswIndex.build(faiss, ids, matrix, params)
