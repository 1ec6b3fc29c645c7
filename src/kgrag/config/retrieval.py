"""The ``[retrieval]`` section of kgrag.toml, with one optional ``[retrieval.pipelines.<name>]`` table per
pipeline whose knobs should differ from the section's."""

from __future__ import annotations

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.core.builtins import new_registry

OptionValue = str | int | float | bool


class PipelineSettings(Section):
    """Per-pipeline overrides; an empty field falls back to the ``[retrieval]`` knob (or, for the
    graph-local search parameters, to the search's own defaults)."""

    pool: int | None = Field(None, ge=1, description="Candidates each search step fetches (retrieval.candidate_pool).")
    rrf_k: int | None = Field(None, ge=1, description="Reciprocal-rank-fusion constant (retrieval.rrf_k).")
    top_entities: int | None = Field(None, ge=1, description="graph-local: entities kept (10).")
    max_relations: int | None = Field(None, ge=0, description="graph-local: relations added (20).")
    max_neighbours: int | None = Field(None, ge=0, description="graph-local: 1-hop neighbours added (10).")
    keyword_boost: float | None = Field(None, ge=0, description="graph-local: score added for a typed name (1.0).")
    entity_pool: int | None = Field(None, ge=1, description="graph-local: entity vector candidates (50).")
    context_tokens: int | None = Field(
        None, ge=16, description="Context budget of this pipeline (retrieval.context_tokens)."
    )
    fusion_lambda: float | None = Field(
        None,
        ge=0,
        le=1,
        description="paths: weight of the dense score in λ fusion (else the `kgrag tune` value, else 0.7).",
    )
    max_hops: int | None = Field(None, ge=1, le=4, description="paths: longest path in hops (2).")
    dense_sentence_share: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Its dense searches' share of the best-sentence score (retrieval.dense_sentence_share).",
    )
    damping: float | None = Field(None, gt=0, lt=1, description="ppr, ppr-passages: PageRank damping factor (0.5).")
    passage_weight: float | None = Field(
        None,
        ge=0,
        le=1,
        description="ppr-passages: share of PageRank's reset mass on the question's dense + BM25 passages, "
        "the rest on its entities (0.8: best of 0–1 on a Medical sample; the LLM-free graph's entity seeds "
        "are many generic noun phrases).",
    )
    routes: dict[str, str] = Field(
        default_factory=dict,
        description="auto: pipeline per route, keys `local`, `multi-hop`, `global` (defaults `rerank`, "
        "`graph-mix-rerank`, `global` when such a pipeline is registered, else the multi-hop one).",
    )
    options: dict[str, OptionValue] = Field(
        default_factory=dict, description="Free-form settings for plug-in pipelines (read by their recipe)."
    )


class RetrievalConfig(Section):
    """Defaults for query-time retrieval."""

    default_pipeline: str = Field("hybrid", description="Pipeline used when a query names none.")
    k: int = Field(5, ge=1, description="Context items returned per query (k = 5 in lundberg-2026).")
    candidate_pool: int = Field(
        50, ge=1, description="Candidates each search step fetches before fusion (pool of 50 in lundberg-2026)."
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant (k = 60, lundberg-2026).")
    context_tokens: int = Field(
        1000,
        ge=16,
        description="Context budget of every pipeline, in tokens: the items a pipeline returns (passages, "
        "entities, relations, paths) are chosen to fit it, so pipelines are compared at equal context. The "
        "default is about what k = 5 chunks of the default size cost; a passage may exceed a budget only "
        "when it is the first item.",
    )
    excerpts: bool = Field(
        True,
        description="Fill the room whole items leave in the context budget with the sentences of the next "
        "passages that name the most query words (one item per passage, labelled with its id). On Medical at "
        "480-token chunks, where two passages fit and ~60 tokens stayed empty, it raised Fact Retrieval recall "
        "by ~0.006 at the same budget; with chunks small enough that k fit, there is no room and nothing changes.",
    )
    dense_sentence_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="When the index holds sentence vectors (`embedding.sentence_vectors`), every dense search "
        "ranks a chunk by (1 − share) × its own cosine + share × the mean cosine of its two best sentences, "
        "so text past the embedder's window counts. On Medical at 480/56 chunks 0.5 raised `dense` Fact "
        "Retrieval 0.595 → 0.643 and `hybrid` 0.668 → 0.704 (0.7 the same, 0.3 half of it). 0 = chunk "
        "cosine only.",
    )
    pipelines: dict[str, PipelineSettings] = Field(
        default_factory=dict,
        description="Per-pipeline overrides, one `[retrieval.pipelines.<name>]` table each, e.g. "
        "`[retrieval.pipelines.hybrid]` `rrf_k = 30`. Keys: `pool`, `rrf_k`, `context_tokens`, "
        "`dense_sentence_share`; for `graph-local` also "
        "`top_entities`, `max_relations`, `max_neighbours`, `keyword_boost`, `entity_pool`; `damping` "
        "(`ppr`, `ppr-passages`), `passage_weight` (`ppr-passages`), `fusion_lambda` and `max_hops` "
        "(`paths`); `options` (a table) for plug-in pipelines. Unset keys fall back to the knobs above. "
        "The name must be a built-in or installed plug-in pipeline (see `kgrag pipelines`).",
    )

    @field_validator("pipelines")
    @classmethod
    def _known_pipelines(cls, value: dict[str, PipelineSettings]) -> dict[str, PipelineSettings]:
        """A table for a pipeline nobody registered is almost always a typo, so it fails at load time.
        Installed plug-ins count (their entry points are read only when a name is not a built-in);
        pipelines registered in code on one workspace take their settings in code instead."""
        if value:
            registry = new_registry("pipeline")
            for name in value:
                registry.check(name, f"retrieval.pipelines.{name}")
        return value

    def settings_for(self, pipeline: str) -> PipelineSettings:
        """The pipeline's own table, or an empty one (every field falls back)."""
        return self.pipelines.get(pipeline) or PipelineSettings()

    def pool_for(self, pipeline: str) -> int:
        """Candidates per search step for ``pipeline``: its ``pool``, else ``candidate_pool``."""
        own = self.settings_for(pipeline).pool
        return own if own is not None else self.candidate_pool

    def context_tokens_for(self, pipeline: str) -> int:
        """Context budget for ``pipeline``: its ``context_tokens``, else the section's."""
        own = self.settings_for(pipeline).context_tokens
        return own if own is not None else self.context_tokens

    def dense_sentence_share_for(self, pipeline: str) -> float:
        """Share of the best-sentence score in ``pipeline``'s dense searches: its own, else the section's."""
        own = self.settings_for(pipeline).dense_sentence_share
        return own if own is not None else self.dense_sentence_share

    def rrf_k_for(self, pipeline: str) -> int:
        """RRF constant for ``pipeline``: its ``rrf_k``, else the section's."""
        own = self.settings_for(pipeline).rrf_k
        return own if own is not None else self.rrf_k
