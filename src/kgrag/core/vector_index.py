"""The vector-search interface shared by the exact and approximate (ANN) indexes, and the choice
between them.

Every caller that searches vectors in memory (chunk vectors in the SQLite store, entity and relation
vectors in the graph index) builds its index with :func:`build_vector_index`, so one setting
(``store.vector_index``, ``store.ann_threshold`` and the HNSW knobs, carried here as
:class:`AnnParams`) decides for all of them. Implementations are chosen by name through the
``vector_index`` registry (``exact``, ``hnsw``, plug-ins under ``kgrag.vector_indexes``); ``auto``
keeps exact search below the threshold, where a matrix product is already fast and perfectly recalls,
and switches to ``hnsw`` above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from kgrag.core.hnsw_settings import HnswSettings
from kgrag.core.records import ScoredId
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry

if TYPE_CHECKING:  # annotations only: the config imports this module, and `kgrag status` needs no NumPy
    import numpy as np

AUTO = "auto"

_HNSW = HnswSettings.model_fields
"""The HNSW defaults are written once, in the `hnsw` entry's settings model."""


@dataclass(frozen=True)
class AnnParams:
    """Which index to build and the HNSW knobs (see ``[store]`` in docs/configuration.md).

    ``m`` is the graph degree (memory and recall grow with it), ``ef_construction`` the build-time beam
    (build time and recall grow with it), ``ef_search`` the query-time beam (latency and recall grow
    with it; raised to ``k`` when a search asks for more). Defaults are those of
    ``[store.vector_indexes.hnsw]`` (from ``bench/bench_ann.py``).
    """

    index: str = AUTO
    threshold: int = 20_000
    m: int = _HNSW["m"].default
    ef_construction: int = _HNSW["ef_construction"].default
    ef_search: int = _HNSW["ef_search"].default
    persist: bool = True
    indexes: Registry[Any] | None = field(default=None, compare=False, repr=False)


class VectorIndex(Protocol):
    """Ids plus a search over their unit vectors: the top ``limit`` ids by cosine, best first."""

    ids: list[str]

    def __len__(self) -> int: ...

    def search(self, query_vector: np.ndarray, limit: int) -> list[ScoredId]: ...


VectorIndexFactory = Callable[..., VectorIndex]
"""Called with the ids, their (n, d) unit matrix and the :class:`AnnParams`."""
VECTOR_INDEXES: RegistryKind[VectorIndexFactory] = RegistryKind("vector_index")


def chosen_index(params: AnnParams, size: int) -> str:
    """The registry name ``params`` selects for ``size`` vectors (``auto`` resolved by the threshold)."""
    if params.index != AUTO:
        return params.index
    return "hnsw" if size >= params.threshold else "exact"


def build_vector_index(ids: list[str], matrix: np.ndarray, params: AnnParams | None = None) -> VectorIndex:
    """The index ``params`` selects over ``ids`` and their (n, d) unit ``matrix`` (exact by default)."""
    params = params or AnnParams(index="exact")
    registry = params.indexes if params.indexes is not None else VECTOR_INDEXES.new()
    index: VectorIndex = registry.create(chosen_index(params, len(ids)), ids, matrix, params)
    return index


def search_many(index: VectorIndex, query_vectors: np.ndarray, limit: int) -> list[list[ScoredId]]:
    """``index.search`` of every query vector; in one pass where the index offers ``search_many`` (the
    exact index), else one search each (approximate and plug-in indexes need not implement it)."""
    batched = getattr(index, "search_many", None)
    if batched is not None:
        hits: list[list[ScoredId]] = batched(query_vectors, limit)
        return hits
    return [index.search(vector, limit) for vector in query_vectors]
