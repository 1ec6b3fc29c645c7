"""The ``[rerank]`` section of kgrag.toml: which reranker the ``Rerank`` step of a pipeline uses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.core.builtins import new_registry


class RerankConfig(Section):
    """The reranker reorders a pool of candidates (50 in lundberg-2026) against the original question."""

    provider: str = Field(
        "fused",
        description="Reranker, by registry name. Built in: `fused` (offline default, no model: the share of "
        "the question's content words each candidate holds, plus small weights on its dense cosine and its "
        "first-stage, BM25 and dense ranks; best of the no-download rerankers on Medical, "
        "docs/results/medical-retrieval-quality.md), `lexical` (the content-word share alone), `sentence` "
        "(each candidate scored by its best-matching "
        "sentences with the local embedder, fused with the incoming rank), "
        "`cross-encoder` (a sentence-transformers CrossEncoder, `model` = name or local path), `http` (a "
        "`/rerank` endpoint: Cohere, Jina, TEI), `llm` (listwise, through the LLM layer), `none` (keep the "
        "order), `word-overlap` (alias of `lexical`). Plug-ins register under `kgrag.rerankers`.",
    )
    model: str = Field("", description="Model name or path (`cross-encoder`; sent as `model` by `http`).")
    url: str | None = Field(None, description="`http`: base URL of the service; `/rerank` is appended if missing.")
    api_shape: Literal["cohere", "tei"] = Field(
        "cohere",
        description="`http` request shape: `cohere` (query, documents, top_n; also Jina) or `tei` (query, texts).",
    )
    api_key_env: str = Field("RERANK_API_KEY", description="`http`: environment variable holding a bearer key.")
    timeout_s: float = Field(30.0, gt=0, description="`http`: request timeout in seconds.")
    sentences: int = Field(2, ge=1, description="`sentence`: best sentences averaged per candidate.")
    incoming_weight: float = Field(
        0.5,
        ge=0,
        description="`sentence`: weight of the incoming (first-stage) rank in the rank fusion; the sentence "
        "rank has weight 1.",
    )
    max_chars: int = Field(1200, ge=100, description="`llm`: characters of each candidate shown to the LLM.")
    fused_similarity: float = Field(
        0.25,
        ge=0,
        description="`fused`: weight of the candidate's dense cosine to the question (word coverage has weight "
        "1). The four `fused_*` defaults were fitted by logistic regression on half of GraphRAG-Bench Medical "
        "and rounded (lundberg-2026's pool of 50 → k); refit them for a corpus unlike it.",
    )
    fused_first_stage: float = Field(
        0.15, ge=0, description="`fused`: weight of 1 / (1 + the candidate's position in the incoming pool)."
    )
    fused_bm25_rank: float = Field(
        0.3, ge=0, description="`fused`: weight of 1 / (1 + its rank by BM25 score within the pool)."
    )
    fused_dense_rank: float = Field(
        0.15, ge=0, description="`fused`: weight of 1 / (1 + its rank by dense score within the pool)."
    )
    fused_sentence: float = Field(
        0.6,
        ge=0,
        description="`fused`: weight of the mean cosine of the candidate's two best-matching sentences; used only "
        "when the index stored sentence vectors (`embedding.sentence_vectors`). Fitted on GraphRAG-Bench "
        "Medical at 480/56 chunks with the other four weights kept.",
    )

    @field_validator("provider")
    @classmethod
    def _known(cls, value: str) -> str:
        new_registry("reranker").check(value, "rerank.provider")
        return value
