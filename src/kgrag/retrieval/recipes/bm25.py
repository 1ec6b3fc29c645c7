"""``bm25``: lexical search with SQLite FTS5; never loads the embedding model."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps.basic import BM25Search, TakeTop, UseStream


def bm25_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """BM25 over chunk text, the ``pool`` best, keep the top k."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "Lexical BM25 search (SQLite FTS5) over chunk text.",
        (BM25Search(pool=pool), UseStream("bm25"), TakeTop(), *finish(name, config)),
    )
