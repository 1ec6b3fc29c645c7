"""Facts about the stored index that steps check before searching, cached until the next write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.retrieval.query_context import QueryContext, QueryResource

if TYPE_CHECKING:
    from kgrag.communities.index import CommunityIndex
    from kgrag.retrieval.steps.router_policy import RouterPolicy


def _communities(ctx: QueryContext) -> CommunityIndex:
    from kgrag.communities.index import load_community_index

    return load_community_index(ctx.store, ctx.model_id)


def _router_policy(ctx: QueryContext) -> RouterPolicy | None:
    from kgrag.retrieval.steps.router_policy import load_policy

    return load_policy(ctx.store.meta.get)


VECTOR_COUNT: QueryResource[int] = QueryResource(
    "vector_count", lambda ctx: ctx.store.vectors.count(ctx.model_id), per_generation=True
)
"""How many vectors the workspace's model has."""
COMMUNITIES: QueryResource[CommunityIndex] = QueryResource("communities", _communities, per_generation=True)
"""Community reports with vectors for the workspace's model (possibly empty)."""
ROUTER_POLICY: QueryResource[RouterPolicy | None] = QueryResource("router_policy", _router_policy, per_generation=True)
"""The routing policy ``kgrag tune router`` stored (None: none), read and validated once per write."""
