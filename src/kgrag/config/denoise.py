"""The ``[denoise]`` section of kgrag.toml: entity resolution and triple reflection (deg-rag).

Strategy names (blocker, matcher, merge mode, reflection method) are registry entries
(``KINDS["resolution_blocker"]`` and friends), so plug-ins add their own and the names are validated
when the denoiser builds them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, declare_moves, move_keys, tables_field

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "kmeans_k": ("blockers.kmeans.k",),
    "ego_weight": ("matchers.ego+neighbour.ego_weight", "matchers.ego+typed-neighbour.ego_weight"),
    "max_group": ("groupers.greedy.max_group",),
    "anchor_floor": ("groupers.greedy.anchor_floor",),
    "same_type": ("groupers.greedy.same_type",),
    "link_below": ("mergers.both.link_below",),
    "reflection_batch": ("reflectors.llm.batch",),
}
"""Flat ``[denoise]`` keys of one strategy each, and the strategy table they are read as."""

declare_moves("denoise", FORMER_KEYS)


class DenoiseConfig(Section):
    """Graph denoising: which strategies, how far to merge, when to drop a relation."""

    blocker: str = Field(
        "kmeans",
        description="Blocking: `kmeans` (semantic k-means on entity vectors, k = √(|E|/10) as in deg-rag), "
        "`type` (one block per entity type, large ones split by k-means), `structural` (neighbour sets), "
        "`none` (one block; small graphs only).",
    )
    max_block: int = Field(
        2000, ge=10, description="Blocks larger than this are split again by k-means (bounds the pairwise work)."
    )
    matcher: str = Field(
        "ego",
        description="Similarity: `ego` (cosine of the entity's own text vector), `neighbour` (mean of neighbour "
        "vectors), `typed-neighbour` (per-type neighbour means, averaged over shared types), `ego+neighbour`, "
        "`ego+typed-neighbour` (weighted by their `ego_weight`); ego matching is deg-rag's default.",
    )
    ego_text: str = Field(
        "name_type",
        description="What the ego vector embeds: `name_type` (default), `name`, or `name_type_description` "
        "(deg-rag's choice, for LLM graphs with real descriptions). The NLP extractor's descriptions are its "
        "source sentences, so with them entities of one sentence look alike; on the NLP graph `name_type` "
        "raises graph-local evidence recall and `name_type_description` lowers it (docs/denoise.md).",
    )
    candidates: int = Field(5, ge=1, description="Nearest neighbours per entity considered inside its block.")
    string_filter: str = Field(
        "none",
        description="Optional name check on candidate pairs: `none`, `jaro-winkler` or `levenshtein` "
        "(normalised similarity via rapidfuzz); pairs under string_min are not merged.",
    )
    string_min: float = Field(0.6, ge=0.0, le=1.0, description="Minimum name similarity when string_filter is set.")
    target_reduction: float = Field(
        0.40, ge=0.0, lt=1.0, description="Stop merging once this share of entities is gone (deg-rag: 40%)."
    )
    threshold: float = Field(
        0.80, ge=-1.0, le=1.0, description="Never merge a pair under this similarity, whatever the target."
    )
    grouper: str = Field(
        "greedy",
        description="Grouping: `greedy` union-find over pairs, best first, until target_reduction or threshold "
        "(deg-rag), with the chain-merge guards of `[denoise.groupers.greedy]`.",
    )
    merge_mode: str = Field(
        "merge",
        description="`merge` (aliases folded into the canonical entity), `link` (a `same_as` relation per alias; "
        "nodes kept) or `both` (merge groups whose weakest link ≥ `link_below` of `[denoise.mergers.both]`, link "
        "the others).",
    )
    canonical: str = Field(
        "most-mentioned", description="Canonical entity of a group: `most-mentioned`, `longest-name`, `shortest-name`."
    )
    llm_confirm: bool = Field(
        False, description="Ask the LLM to confirm each group (yes/no, name to keep; feldt-hellstrom-2026)."
    )
    reflection: str = Field(
        "provenance",
        description="Triple reflection: `llm` (the LLM scores each relation 0–1 with a reason; deg-rag), "
        "`provenance` (support from source sentences and chunk counts, no LLM) or `none`.",
    )
    drop_below: float = Field(0.2, ge=0.0, le=1.0, description="Relations scored under this are removed (deg-rag δ).")
    sample: int = Field(20, ge=0, description="Merges and drops listed in reports for review.")
    blockers: Annotated[Tables, EntryTables("resolution_blocker", "denoise.blockers")] = tables_field(
        "resolution_blocker",
        "One `[denoise.blockers.<name>]` table per blocker with settings of its own (see *Entry settings*).",
    )
    matchers: Annotated[Tables, EntryTables("resolution_matcher", "denoise.matchers")] = tables_field(
        "resolution_matcher",
        "One `[denoise.matchers.<name>]` table per matcher with settings of its own (see *Entry settings*).",
    )
    groupers: Annotated[Tables, EntryTables("resolution_grouper", "denoise.groupers")] = tables_field(
        "resolution_grouper",
        "One `[denoise.groupers.<name>]` table per grouper with settings of its own (see *Entry settings*).",
    )
    mergers: Annotated[Tables, EntryTables("resolution_merger", "denoise.mergers")] = tables_field(
        "resolution_merger",
        "One `[denoise.mergers.<name>]` table per merge mode with settings of its own (see *Entry settings*).",
    )
    reflectors: Annotated[Tables, EntryTables("triple_reflector", "denoise.reflectors")] = tables_field(
        "triple_reflector",
        "One `[denoise.reflectors.<name>]` table per triple reflector with settings of its own (see *Entry settings*).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "denoise", FORMER_KEYS)
