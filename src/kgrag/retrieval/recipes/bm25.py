"""``bm25``: lexical search with the store's own keyword ranking (SQLite FTS5's BM25, PostgreSQL's
``ts_rank_cd``); never loads the embedding model."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps.basic import BM25Search, TakeTop, UseStream

LEXICAL_RANKINGS = {
    "sqlite": "BM25 of SQLite FTS5",
    "postgresql": "ts_rank_cd of PostgreSQL full-text search: cover density, no IDF; not BM25",
}
"""Each built-in store's keyword ranking, which ``bm25`` (and every pipeline that fuses it) returns."""


def lexical_ranking(config: KgragConfig) -> str:
    """The keyword ranking of the workspace's store, as a pipeline's description names it."""
    return LEXICAL_RANKINGS.get(config.store.backend, f"the {config.store.backend} store's keyword ranking")


def bm25_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """BM25 over chunk text, the ``pool`` best, keep the top k."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        f"Lexical search over chunk text ({lexical_ranking(config)}).",
        (BM25Search(pool=pool), UseStream("bm25"), TakeTop(), *finish(name, config)),
    )
