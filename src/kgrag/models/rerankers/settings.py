"""The settings models of the built-in rerankers: the one place their ``[rerank.<name>]`` keys and
defaults are written. ``KINDS["reranker"]`` names each model beside its factory, which receives the
validated table (``fused_reranker(settings: FusedSettings, resources)``). Only pydantic is imported, so
validating a kgrag.toml loads no model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class RerankerSettings(BaseModel):
    """Base of a reranker's settings: unknown keys are errors, assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class FusedSettings(RerankerSettings):
    """``fused``: weights of the first-stage signals; word coverage has weight 1. The defaults were fitted
    by logistic regression on half of GraphRAG-Bench Medical and rounded (lundberg-2026's pool of 50 → k);
    refit them for a corpus unlike it with `kgrag tune reranker`."""

    similarity: float = Field(0.25, ge=0, description="Weight of the candidate's dense cosine to the question.")
    first_stage: float = Field(
        0.15, ge=0, description="Weight of 1 / (1 + the candidate's position in the incoming pool)."
    )
    bm25_rank: float = Field(0.3, ge=0, description="Weight of 1 / (1 + its rank by BM25 score within the pool).")
    dense_rank: float = Field(0.15, ge=0, description="Weight of 1 / (1 + its rank by dense score within the pool).")
    sentence: float = Field(
        0.6,
        ge=0,
        description="Weight of the mean cosine of the candidate's two best-matching sentences; used only when "
        "the index stored sentence vectors (`embedding.sentence_vectors`). Fitted on GraphRAG-Bench Medical "
        "at 480/56 chunks with the other four weights kept.",
    )


class SentenceSettings(RerankerSettings):
    """``sentence``: candidates scored by their best-matching sentences with the local embedder."""

    sentences: int = Field(2, ge=1, description="Best sentences averaged per candidate.")
    incoming_weight: float = Field(
        0.5,
        ge=0,
        description="Weight of the incoming (first-stage) rank in the rank fusion; the sentence rank has weight 1.",
    )


class CrossEncoderSettings(RerankerSettings):
    """``cross-encoder``: a sentence-transformers CrossEncoder."""

    model: str = Field("", description="Model name or local path (required).")


class HttpSettings(RerankerSettings):
    """``http``: a ``/rerank`` endpoint (Cohere, Jina or TEI request shape)."""

    url: str | None = Field(None, description="Base URL of the service; `/rerank` is appended if missing.")
    model: str = Field("", description="Sent as `model` in the request.")
    api_shape: Literal["cohere", "tei"] = Field(
        "cohere", description="Request shape: `cohere` (query, documents, top_n; also Jina) or `tei` (query, texts)."
    )
    api_key_env: str = Field("RERANK_API_KEY", description="Environment variable holding a bearer key.")
    timeout_s: float = Field(30.0, gt=0, description="Request timeout in seconds.")


class ListwiseSettings(RerankerSettings):
    """``llm``: listwise reranking by the configured LLM."""

    max_chars: int = Field(1200, ge=100, description="Characters of each candidate shown to the LLM.")
