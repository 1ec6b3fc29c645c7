"""The ``[indexing]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.core.builtins import new_registry


class IndexingConfig(Section):
    """How `kgrag index` runs: which pipeline of named stages."""

    pipeline: str = Field(
        "standard",
        description="Indexing pipeline: an ordered list of stages. `standard` builds everything (chunks, "
        "vectors, graph); `no-graph` skips extraction (an existing graph still follows removed or re-chunked "
        "documents); `fast` is lexical only (BM25 at once, documents stay `chunked`; a later `standard` run "
        "adds vectors and graph). Installed plug-ins add pipelines (entry points `kgrag.index_pipelines`, "
        "stages `kgrag.stages`); `kgrag` rejects names it does not know.",
    )

    @field_validator("pipeline")
    @classmethod
    def _known_pipeline(cls, value: str) -> str:
        """Fail at load time, naming the field, rather than when indexing starts."""
        return new_registry("index_pipeline").check(value, "indexing.pipeline")
