"""Settings models of the built-in community builders: ``[communities.builders.leiden]`` (and
``graspologic``, which takes the same knobs) and ``[communities.builders.leiden-multires]``."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section

_SEED = "Random seed of the Leiden runs: the same graph and seed give the same communities."
_ITERATIONS = "Leiden iterations per run (-1: until stable); 2 as graspologic and igraph default."


class LeidenSettings(Section):
    """Hierarchical Leiden: communities above `max_cluster_size` are partitioned again, one level finer."""

    max_cluster_size: int = Field(
        25,
        ge=2,
        description="Communities larger than this are partitioned again, one level finer. Microsoft GraphRAG "
        "uses 10; 25 gives fewer, larger level-0 communities, so fewer report calls (docs/communities.md).",
    )
    max_levels: int = Field(4, ge=1, le=12, description="Most levels the hierarchy may have.")
    seed: int = Field(42, description=_SEED)
    resolution: float = Field(1.0, gt=0, description="Leiden modularity resolution (higher: smaller communities).")
    iterations: int = Field(2, ge=-1, description=_ITERATIONS)


class MultiResolutionSettings(Section):
    """One Leiden level per resolution (triple-layer-graphrag)."""

    resolutions: list[float] = Field(
        default_factory=lambda: [2.0, 1.0, 0.5],
        description="One level per resolution, finest (largest value) first; 0.5/1.0/2.0 as proposed in "
        "triple-layer-graphrag.",
    )
    seed: int = Field(42, description=_SEED)
    iterations: int = Field(2, ge=-1, description=_ITERATIONS)
