"""Step groups that several recipes share, so each recipe file stays a short declaration.

``hybrid_search`` is the dense + BM25 + RRF first stage of lundberg-2026; ``finish`` is how every
pipeline ends: hydrate what survived, then fit the pipeline's context budget
(:mod:`kgrag.retrieval.steps.budget`), which is what makes pipelines comparable at equal context.
"""

from __future__ import annotations

from typing import Literal

from kgrag.config import KgragConfig
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, FuseRRF, Hydrate, Step
from kgrag.retrieval.steps.budget import FitBudget

EMBEDDINGS = frozenset({"embeddings"})
GRAPH = frozenset({"graph"})


def hybrid_search(
    name: str, config: KgragConfig, *, rrf: str = "rrf_fuse", keep: int | Literal["k"] | None = None
) -> tuple[Step, ...]:
    """Dense and BM25 over every query in the state, fused by reciprocal rank (``keep``: the cut the
    recipe makes next, see :class:`~kgrag.retrieval.steps.FuseRRF`)."""
    pool = config.retrieval.pool_for(name)
    rrf_k = config.retrieval.rrf_k_for(name)
    fuse = FuseRRF(("dense", "bm25"), k=rrf_k, name=rrf, keep=keep)
    return (DenseSearch(pool=pool), BM25Search(pool=pool), fuse)


def finish(name: str, config: KgragConfig) -> tuple[Step, ...]:
    """Hydrate, then keep what fits ``context_tokens`` of this pipeline."""
    return (Hydrate(), FitBudget(config.retrieval.context_tokens_for(name), excerpts=config.retrieval.excerpts))
