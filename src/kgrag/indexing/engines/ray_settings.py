"""The ``ray`` engine's settings: ``[indexing.engines.ray]``."""

from __future__ import annotations

from pydantic import Field

from kgrag.config import IndexingConfig
from kgrag.config.base import Section


class RayEngineSettings(Section):
    """Where Ray runs and how the heavy stages are cut into Ray Data batches (docs/ray.md)."""

    address: str | None = Field(
        None,
        description="Ray cluster to connect to (`auto`, `host:6379` or `ray://host:10001`); unset starts a "
        "local Ray for the run and stops it afterwards.",
    )
    num_cpus: int = Field(2, ge=1, description="CPUs of the local Ray started when `address` is unset.")
    load_batch: int = Field(8, ge=1, description="Files per load+chunk batch (Ray tasks).")
    load_concurrency: int = Field(2, ge=1, description="Load+chunk tasks running at once.")
    extract_batch: int = Field(
        32, ge=1, description="Extraction groups per batch (a chunk for the NLP extractor) sent to one actor."
    )
    extract_concurrency: int = Field(
        2, ge=1, description="Extraction actors (each loads the extractor, e.g. the spaCy model, once)."
    )
    embed_batch: int = Field(64, ge=1, description="Texts per embedding batch sent to one actor.")
    embed_concurrency: int = Field(
        1, ge=1, description="Embedding actors (each loads the embedding model once: memory grows with this)."
    )


def ray_settings(indexing: IndexingConfig) -> RayEngineSettings:
    """The `ray` engine's settings (its table, else the defaults)."""
    return indexing.entry_settings("engines", "ray", RayEngineSettings)
