"""The probe's community report: one LLM report written, for real, on what the probe's units gave.

An extraction probe cannot see how a model answers the report prompt: how long its reports are, and how
often a report runs past ``communities.report_max_tokens`` or fails validation and is asked again (a
model that writes long findings under a tight cap pays two calls for most reports). When the indexing
pipeline writes community reports with the LLM, the probe therefore writes one, built as the report stage
builds a level-0 report (:func:`~kgrag.communities.material.build_material`), on a typical community
(the median-sized one the configured builder finds) of the entities and relations the model just
extracted from the probe's units, through the same client and ledger stage.
The estimate then reads the report prompt's reply size and re-ask rate from the ledger
(:func:`~kgrag.indexing.estimate_assumptions.calibrate_assumptions`), like every other prompt's; the
number of reports stays counted on the stand-in graph. The report itself is not stored: the run's
communities are not the probe's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from kgrag.core.stages import COMMUNITY_REPORTS, ledger_stage
from kgrag.indexing.estimate_communities import reportable_groups

if TYPE_CHECKING:
    from kgrag.communities.detect import BuilderFactory
    from kgrag.communities.material import Job
    from kgrag.config import KgragConfig
    from kgrag.core.community_records import CommunityRecord
    from kgrag.core.registry import Registry
    from kgrag.graph.types import ChunkExtraction
    from kgrag.models.llm import LLMClient

    Groups = Callable[[Iterable[str], Iterable[tuple[str, str]]], list[CommunityRecord]]


def probe_report(
    config: KgragConfig, client: LLMClient, stages: Sequence[str], extractions: Sequence[ChunkExtraction],
    builders: Registry[BuilderFactory],
) -> list[str]:  # fmt: skip
    """Write one community report with ``client`` when the pipeline (``stages``) writes LLM reports and the
    probe's ``extractions`` form a community large enough for one (found by the configured builder of
    ``builders``); the line saying so (none when nothing was sent)."""
    from kgrag.communities.llm_writer import REPORT_PROMPT, report_variables
    from kgrag.communities.material import build_material
    from kgrag.communities.schemas import CommunityReportReply

    settings = config.communities
    if COMMUNITY_REPORTS not in stages or settings.reports == "extractive" or not client.available:
        return []
    job = probe_job(extractions, partial(reportable_groups, config=settings, builders=builders))
    if job is None:
        return []
    material = build_material(job, settings.report_input_tokens, client.count_tokens)
    client.map_structured(
        REPORT_PROMPT, [report_variables(material, settings, config.graph.language)], CommunityReportReply,
        stage=ledger_stage(COMMUNITY_REPORTS), max_tokens=settings.report_max_tokens,
    )  # fmt: skip
    return [
        f"probe: one community report written for real, on a community of {len(job.entities)} of the "
        "entities it extracted (how this model answers the report prompt; not stored)"
    ]


def probe_job(extractions: Sequence[ChunkExtraction], groups: Groups) -> Job | None:
    """A level-0 report job on the median-sized of the reportable ``groups`` of the entities in
    ``extractions`` (merged by name, as the graph builder merges them), ranked as the report stage ranks a
    community; None when there is no such community."""
    from kgrag.communities.material import GraphData, level0_job
    from kgrag.core.graph_records import EntityRecord, RelationRecord

    entities: dict[str, EntityRecord] = {}
    for entity in (e for x in extractions if x.error is None for e in x.entities):
        key = entity.name.casefold()
        if key not in entities:
            entities[key] = EntityRecord(key, key, entity.name, entity.type, entity.description)
    data = GraphData(entities, {})
    for relation in (r for x in extractions if x.error is None for r in x.relations):
        source, target = sorted((relation.source.casefold(), relation.target.casefold()))
        if source == target or source not in entities or target not in entities:
            continue
        if any(r.target_id == target for r in data.by_entity.get(source, ())):
            continue  # the pair is related already: the builder merges repeated relations into one
        record = RelationRecord(
            f"{source}|{target}", source, target, relation.label, relation.description, relation.keywords,
            relation.weight,
        )  # fmt: skip
        data.by_entity.setdefault(source, []).append(record)
        data.by_entity.setdefault(target, []).append(record)
    pairs = [(r.source_id, r.target_id) for records in data.by_entity.values() for r in records]
    level0 = sorted((g for g in groups(entities, pairs) if g.level == 0), key=lambda g: (g.size, g.entity_ids))
    return level0_job(level0[len(level0) // 2], data) if level0 else None
