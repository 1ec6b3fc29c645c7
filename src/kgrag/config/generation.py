"""The ``[generation]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from kgrag.config.base import Section


class GenerationConfig(Section):
    """How answers are produced from retrieved context."""

    extractive_sentences: int = Field(3, ge=1, description="Sentences in the LLM-free extractive answer.")
    extractive_ranking: Literal["auto", "embedding", "lexical"] = Field(
        "auto",
        description="How the LLM-free answer ranks the retrieved sentences: `lexical` (the share of the "
        "question's words a sentence holds, weighted by rarity, plus a bonus when it holds the kind of thing "
        "the question asks for: a name for who, a date for when, a number for how many; loads no model), "
        "`embedding` (the same plus the cosine to the question with the workspace's embedder: one "
        "embedding per candidate sentence), or `auto` (= `lexical`). Headings, signatures, code lines and "
        "questions (an FAQ's own question) are never picked, nor a lead-in ending in a colon unless the "
        "command it introduces follows it (docs/results/extractive-answer.md).",
    )
    extractive_min_coverage: float = Field(
        0.25,
        ge=0,
        le=1,
        description='The LLM-free answer says "Not found in the documents" when the best retrieved sentence '
        "holds less than this rarity-weighted share of the question's words; 0 always answers. With "
        "`extractive_calibrate` this is the ceiling of the threshold calibrated on the workspace's own "
        "sentences (docs/results/doc-site-answers.md).",
    )
    extractive_calibrate: bool = Field(
        True,
        description="Calibrate the LLM-free answer's not-found threshold per corpus and question: the best "
        "retrieved sentence must cover the question 1.25 times better than the best of a sample of the "
        "workspace's own sentences does (at least 0.12, at most `extractive_min_coverage`).",
    )
    context_tokens: int = Field(
        3000,
        ge=64,
        description="Token budget of the context block given to the answer LLM (question and instructions "
        "not included). Items are added whole in rank order until their share is full.",
    )
    passages_share: float = Field(
        0.6,
        ge=0,
        le=1,
        description="Share of `context_tokens` for passages (chunk items). Shares are normalised to sum to 1; "
        "a share its kind cannot fill flows to the other kinds.",
    )
    graph_share: float = Field(
        0.25, ge=0, le=1, description="Share of `context_tokens` for entities, relations and graph paths."
    )
    communities_share: float = Field(0.15, ge=0, le=1, description="Share of `context_tokens` for community reports.")
    history_share: float = Field(
        0.25,
        ge=0,
        le=1,
        description="Conversations: the share of `context_tokens` the earlier turns may take when a follow-up "
        "question is rewritten to stand on its own (the most recent turns first; older ones are left out). "
        "0 reads no history: every question is taken as asked.",
    )
    attribution: Literal["auto", "off"] = Field(
        "auto",
        description="`auto`: every sentence of an LLM answer that carries no `[c:ID]` citation of the model's "
        "own is aligned to the context passage that supports it (marked `attributed`), or marked "
        "`unsupported` when no passage reaches `attribution_threshold`; `off`: model citations only.",
    )
    attribution_threshold: float = Field(
        0.39,
        ge=0,
        le=1,
        description="Least support (embedding × `attribution_embedding_weight` + lexical share × the rest) "
        "for a passage to be attributed to an answer sentence. Calibrated on the sample corpus "
        "(docs/results/citation-attribution.md).",
    )
    attribution_embedding_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Weight of the embedding cosine (sentence against the passage's closest sentence) in "
        "the attribution score; the rest is the share of the sentence's content words the passage holds.",
    )

    @model_validator(mode="after")
    def _some_share(self) -> GenerationConfig:
        if self.passages_share + self.graph_share + self.communities_share <= 0:
            raise ValueError("generation: at least one of the context shares must be above 0")
        return self
