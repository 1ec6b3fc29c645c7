"""The ``[retrieval]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class RetrievalConfig(Section):
    """Defaults for query-time retrieval."""

    default_pipeline: str = Field("hybrid", description="Pipeline used when a query names none.")
    k: int = Field(5, ge=1, description="Context items returned per query (k = 5 in lundberg-2026).")
    candidate_pool: int = Field(
        50, ge=1, description="Candidates each search step fetches before fusion (pool of 50 in lundberg-2026)."
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant (k = 60, lundberg-2026).")
