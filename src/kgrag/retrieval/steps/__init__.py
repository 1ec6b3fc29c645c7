"""Retrieval steps, a module per family: ``basic`` (the query state, the step protocol, dense and BM25
search, fusion, cut, hydration), ``budget`` and ``excerpts`` (the context budget), ``graph``,
``graph_local``, ``lightrag``, ``paths``, ``ppr`` (graph walks), ``community`` and ``global_plan``
(community reports), ``query`` (query rewriting), ``rerank``, ``router``, ``sentence_search`` and
``sentence_scores``. The basic steps are importable from here, the others from their module."""

from kgrag.retrieval.steps.basic import (
    BM25Search,
    DenseSearch,
    FuseRRF,
    Hydrate,
    QueryState,
    Step,
    TakeTop,
    UseStream,
    bm25_hits,
)

__all__ = [
    "BM25Search",
    "DenseSearch",
    "FuseRRF",
    "Hydrate",
    "QueryState",
    "Step",
    "TakeTop",
    "UseStream",
    "bm25_hits",
]
