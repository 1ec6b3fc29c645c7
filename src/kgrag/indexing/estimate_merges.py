"""How many merge confirmations a model's graph asks for, per confirmation of the estimate's stand-in graph.

The estimate counts LLM merge confirmations (``denoise.llm_confirm``) by running entity resolution on its
stand-in graph (:mod:`kgrag.graph.extract.structural`: capitalised names), one call per group the
resolution plan finds. A model whose entities are other things (lower-case terms, fewer or longer names)
gives the plan other candidates, and it may find many more groups or none. So the groups are measured, as
the community reports are (:mod:`kgrag.indexing.estimate_communities`): on the units a model really
extracted (the probe's, or the stored graph's), the configured resolution plan (LLM-free: blocking,
matching, grouping) runs over the model's own entities and over the stand-in's entities of the same texts
(with the measured shares), and the estimate scales its counted confirmation calls by the ratio of their
groups. Both sides embed with the hashing embedder the estimate's own run uses, so the ratio compares the
two entity sets, not two embedders. A stand-in without any group on those units says nothing: the ratio
is then 1.

The summaries merges make the run redo are not seen either (the estimate confirms no merge). Where the
workspace has resolved with LLM confirmation before, :func:`merge_summaries` reads them from its ledger:
a resolution sends its confirmations, applies the confirmed merges and re-summarises what they joined,
so the summary calls that follow a run of confirmation calls are that resolution's re-summaries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.config import DenoiseConfig
    from kgrag.core.llm_usage import CallRecord
    from kgrag.core.registries import Registries
    from kgrag.indexing.estimate_shares import UnitSample
    from kgrag.models.llm.estimate_assumed import MergeSummaries

Entity = tuple[str, str, str]  # name, type, description
GroupCounter = Callable[[Sequence[Entity], Iterable[tuple[str, str]]], int]

MAX_RATIO = 10.0  # a handful of probed units cannot justify scaling the counted confirmations further
EMBEDDING_DIMENSION = 64  # the hashing embedder's, when the workspace recorded none
CONFIRM_STAGE = "index.resolve"  # the ledger stages of a resolution's confirmations and of summaries
SUMMARY_STAGE = "index.summarize"


def group_counter(config: DenoiseConfig, registries: Registries, dimension: int | None = None) -> GroupCounter:
    """:func:`resolution_groups` with the workspace's denoising settings and strategies."""
    return partial(resolution_groups, config=config, registries=registries, dimension=dimension)


def resolution_groups(
    entities: Sequence[Entity], pairs: Iterable[tuple[str, str]], *, config: DenoiseConfig,
    registries: Registries, dimension: int | None = None,
) -> int:  # fmt: skip
    """Groups the resolution plan of ``config`` finds among ``entities`` (one per casefolded name, the
    first kept) related by ``pairs`` (casefolded names), their ego vectors from the hashing embedder."""
    from kgrag.core.graph_records import EntityRecord, RelationRecord
    from kgrag.denoise.resolve import ego_text, plan_resolution, resolution_graph, strategies
    from kgrag.models.embeddings import FakeEmbedder

    seen: dict[str, EntityRecord] = {}
    for name, type_, description in entities:
        key = name.casefold()
        if key and key not in seen:
            seen[key] = EntityRecord(f"e{len(seen)}", key, name, type_, description, ("c",))
    if len(seen) < 2:
        return 0
    records = list(seen.values())
    relations = [
        RelationRecord(f"r{n}", seen[a].id, seen[b].id, "related_to", "")
        for n, (a, b) in enumerate(sorted(set(pairs)))
        if a in seen and b in seen and a != b
    ]
    embedder = FakeEmbedder(dimension or EMBEDDING_DIMENSION)
    vectors = embedder.embed([ego_text(record, config.ego_text) for record in records])
    graph = resolution_graph(records, relations, vectors)
    return len(plan_resolution(graph, config, strategies(config, registries)).groups)


def merge_ratio(samples: Sequence[UnitSample], name_share: float, relation_share: float, count: GroupCounter) -> float:
    """The groups the resolution plan finds among the model's entities of ``samples`` per group it finds
    among the stand-in's (1 when the stand-in has none there)."""
    from kgrag.graph.extract.structural import structural_items

    model = count([e for s in samples for e in s.entities], [pair for s in samples for pair in s.relations])
    entities: list[Entity] = []
    pairs: set[tuple[str, str]] = set()
    for sample in samples:
        items = structural_items(sample.text, name_share, relation_share)
        entities.extend((e.name, e.type, e.description) for e in items.entities)
        pairs.update((r.source.casefold(), r.target.casefold()) for r in items.relations)
    stand_in = count(entities, pairs)
    return group_ratio(model, stand_in)


def group_ratio(model: int, stand_in: int) -> float:
    """``model`` groups per ``stand_in`` group, or 1 when the two counts do not differ beyond chance: when
    the interval of the model's share of all groups found (Jeffreys, at the estimate range's
    :data:`~kgrag.models.llm.estimate_range.CONFIDENCE`) holds one half. On a probe's few units a group
    or two more or less is noise, while a model whose entities give no group at all where the stand-in's
    give twenty is not."""
    from kgrag.models.llm.estimate_range import failure_interval

    if not stand_in:
        return 1.0
    low, high = failure_interval(model, model + stand_in)
    return 1.0 if low <= 0.5 <= high else min(MAX_RATIO, model / stand_in)


def merge_summaries(runs: Iterable[Sequence[CallRecord]], model: str | None) -> MergeSummaries | None:
    """The summary calls that followed ``model``'s merge confirmations in ``runs`` (each run's ledger
    rows, oldest first), per confirmation call sent; None when no confirmation was sent.

    A confirmation (sent or answered from the cache) opens or continues a resolution; the summary calls
    right after it are its re-summaries, and any other call ends it. Only calls really sent count (no
    cache hits, no estimated rows); another model's rows end a resolution too.
    """
    from kgrag.models.llm.estimate_assumed import MergeSummaries

    confirmations = summaries = prompt = completion = 0
    for records in runs:
        resolving = False
        for record in records:
            ours = not record.estimated and model in (None, record.model)
            paid = ours and not record.cache_hit
            if ours and record.stage == CONFIRM_STAGE:
                resolving = True
                confirmations += paid
            elif resolving and ours and record.stage == SUMMARY_STAGE:
                summaries += paid
                prompt += record.prompt_tokens if paid else 0
                completion += record.completion_tokens if paid else 0
            else:
                resolving = False
    if not confirmations:
        return None
    each = max(1, summaries)
    return MergeSummaries(confirmations, summaries, round(prompt / each), round(completion / each))
