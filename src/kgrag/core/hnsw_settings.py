"""The `hnsw` vector index's settings: ``[store.vector_indexes.hnsw]`` (defaults from ``bench/bench_ann.py``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class HnswSettings(BaseModel):
    """faiss HNSW: graph degree and beams."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    m: int = Field(32, ge=4, le=128, description="Graph degree: more = higher recall, memory, build time.")
    ef_construction: int = Field(80, ge=8, le=1024, description="Build beam: more = higher recall and slower build.")
    ef_search: int = Field(
        96, ge=8, le=4096, description="Query beam (raised to k): more = higher recall and slower queries."
    )
