"""How many community reports a model's graph asks for, per report of the estimate's stand-in graph.

The estimate counts community reports by running the community stage on its stand-in graph
(:mod:`kgrag.graph.extract.structural`: capitalised names, related when they follow each other). Shares of
the stand-in's names and relations (:mod:`kgrag.indexing.estimate_shares`) make it smaller or denser, but
cannot give it the entities a model finds that are not capitalised names (lower-case terms), around which
that model's communities form. So the communities themselves are measured: on the units a model really
extracted (the probe's, or the stored graph's), the configured builder partitions the model's own graph and
the stand-in graph of the same texts (with the measured shares), and the estimate scales its counted
report calls by the ratio of their communities large enough for a report (``communities.min_community_size``).
A stand-in without any such community on those units says nothing: the ratio is then 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.communities.detect import BuilderFactory
    from kgrag.config import CommunitiesConfig
    from kgrag.core.community_records import CommunityRecord
    from kgrag.core.registries import Registries
    from kgrag.core.registry import Registry
    from kgrag.indexing.estimate_shares import UnitSample

CommunityCounter = Callable[[Iterable[str], Iterable[tuple[str, str]]], int]

MAX_RATIO = 10.0  # a handful of probed units cannot justify scaling the counted reports further


def community_counter(config: CommunitiesConfig, registries: Registries) -> CommunityCounter:
    """:func:`reportable_communities` with the workspace's settings and its community builders."""
    from kgrag.communities.detect import COMMUNITY_BUILDERS

    return partial(reportable_communities, config=config, builders=registries.get(COMMUNITY_BUILDERS))


def reportable_communities(
    names: Iterable[str], pairs: Iterable[tuple[str, str]], *, config: CommunitiesConfig,
    builders: Registry[BuilderFactory],
) -> int:  # fmt: skip
    """Communities of at least ``communities.min_community_size`` entities (on every level) that the
    configured builder (of ``builders``) finds in the graph of ``names`` (keys) and relation ``pairs``
    (unit weights)."""
    return len(reportable_groups(names, pairs, config=config, builders=builders))


def reportable_groups(
    names: Iterable[str], pairs: Iterable[tuple[str, str]], *, config: CommunitiesConfig,
    builders: Registry[BuilderFactory],
) -> list[CommunityRecord]:  # fmt: skip
    """The communities :func:`reportable_communities` counts, their ``entity_ids`` the keys of ``names``."""
    import igraph as ig

    from kgrag.communities.detect import create_builder
    from kgrag.communities.hierarchy import WEIGHT, to_records

    pairs = [(a, b) for a, b in pairs if a != b]
    ids = sorted(set(names) | {key for pair in pairs for key in pair})
    if not ids:
        return []
    index = {key: number for number, key in enumerate(ids)}
    edges = sorted({tuple(sorted((index[a], index[b]))) for a, b in pairs})
    graph = ig.Graph(n=len(ids), edges=edges)
    graph.es[WEIGHT] = [1.0] * len(edges)
    records = to_records(create_builder(config, builders).build(graph), ids)
    return [record for record in records if record.size >= config.min_community_size]


def community_ratio(
    samples: Sequence[UnitSample], name_share: float, relation_share: float, count: CommunityCounter
) -> float:
    """The model's reportable communities per reportable community of the stand-in graph over ``samples``
    (1 when the stand-in has none there)."""
    from kgrag.graph.extract.structural import structural_items

    model = count((key for s in samples for key in s.names), (pair for s in samples for pair in s.relations))
    names: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for sample in samples:
        items = structural_items(sample.text, name_share, relation_share)
        names.update(e.name.casefold() for e in items.entities)
        pairs.update((r.source.casefold(), r.target.casefold()) for r in items.relations)
    stand_in = count(names, pairs)
    return min(MAX_RATIO, model / stand_in) if stand_in else 1.0
