"""Facts about the stored index that steps check before searching, cached until the next write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.retrieval.query_context import QueryContext, QueryResource

if TYPE_CHECKING:
    from kgrag.communities.index import CommunityIndex


def _communities(ctx: QueryContext) -> CommunityIndex:
    from kgrag.communities.index import load_community_index

    return load_community_index(ctx.store, ctx.model_id)


VECTOR_COUNT: QueryResource[int] = QueryResource(
    "vector_count", lambda ctx: ctx.store.vectors.count(ctx.model_id), per_generation=True
)
"""How many vectors the workspace's model has."""
COMMUNITIES: QueryResource[CommunityIndex] = QueryResource("communities", _communities, per_generation=True)
"""Community reports with vectors for the workspace's model (possibly empty)."""
