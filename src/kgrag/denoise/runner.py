"""Denoising end to end: plan (dry run) or apply resolution then reflection, with counts and samples.

Used by the ``resolve`` and ``reflect`` indexing stages and by ``ws.denoise``; neither re-implements it.
Re-runs do not shrink the graph again and again: the target reduction counts the entities earlier runs
already merged away (``entity_aliases``), so after new documents only the new share is resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.denoise_records import DenoiseRun
from kgrag.core.errors import ConfigError
from kgrag.core.graph_records import EntityRecord
from kgrag.core.registries import Registries, RegistryKind
from kgrag.denoise.apply import apply_reflection, apply_resolution, begin_run, finish_run, start_run
from kgrag.denoise.confirm import confirm_groups
from kgrag.denoise.reflect import ReflectContext, ReflectionPlan, ReflectorFactory, plan_reflection
from kgrag.denoise.resolve import load_resolution_graph, plan_resolution, strategies
from kgrag.denoise.types import ResolutionGraph, ResolutionPlan
from kgrag.documents import TokenCounter
from kgrag.graph.build.overrides import held_apart
from kgrag.graph.build.summarize import Summarizer
from kgrag.models.embeddings import Embedder
from kgrag.models.llm.client import LLMClient
from kgrag.store.base import Store


@dataclass(frozen=True)
class DenoiseInputs:
    """What a denoising run reads: the store, its settings, the embedder, LLM and summariser, and the
    ledger stages its LLM calls are booked under."""

    store: Store
    config: DenoiseConfig
    embedder: Embedder
    summarizer: Summarizer
    llm: LLMClient | None = None
    counter: TokenCounter | None = None
    resolve_stage: str = "index.resolve"
    reflect_stage: str = "index.reflect"
    dry_run: bool = False
    """Plan only: ego vectors computed for the plan are not stored, so the database is left as it was
    (LLM calls a plan makes, with ``llm_confirm`` or ``reflection = llm``, are still cached and booked)."""
    registries: Registries | None = None
    """The workspace's registries (blockers, matchers, groupers, merge modes, reflectors); None: built-ins."""


@dataclass
class DenoisePlan:
    """A resolution plan over ``graph`` and a reflection plan over the current relations."""

    graph: ResolutionGraph | None = None
    resolution: ResolutionPlan | None = None
    reflection: ReflectionPlan | None = None
    names: dict[str, str] = field(default_factory=dict)


def new_run_id(store: Store) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"dn-{stamp}-{len(store.denoise.runs()) + 1}"


def _effective(config: DenoiseConfig, entities: int, merged_before: int) -> DenoiseConfig:
    """The config with the target reduction counted over the graph as extracted (before any merge)."""
    if not merged_before or not entities:
        return config
    wanted = config.target_reduction * (entities + merged_before) - merged_before
    return config.model_copy(update={"target_reduction": min(0.99, max(0.0, wanted / entities))})


TRIPLE_REFLECTORS: RegistryKind[ReflectorFactory] = RegistryKind("triple_reflector")
"""Factories ``(DenoiseConfig) -> Reflector`` (see :mod:`kgrag.denoise.reflect`)."""


def plan_entities(inputs: DenoiseInputs) -> tuple[ResolutionGraph, ResolutionPlan, dict[str, EntityRecord]]:
    """Resolution plan over the stored graph (LLM-confirmed when ``llm_confirm``)."""
    config = inputs.config
    graph = load_resolution_graph(inputs.store, inputs.embedder, config, keep_vectors=not inputs.dry_run)
    graph = replace(graph, held_apart=held_apart(inputs.store))
    merged_before = len(inputs.store.denoise.aliases())
    plan = plan_resolution(graph, _effective(config, graph.size, merged_before), strategies(config, inputs.registries))
    plan.counts["merged_before"] = merged_before
    records = {e.id: e for e in inputs.store.graph.entities([graph.ids[m] for g in plan.groups for m in g.members])}
    if config.llm_confirm and plan.groups:
        if inputs.llm is None or not inputs.llm.available:
            raise ConfigError("denoise.llm_confirm needs an LLM; set llm.provider or turn llm_confirm off")
        plan = confirm_groups(plan, graph, records, inputs.llm, inputs.resolve_stage)
    return graph, plan, records


def plan_relations(
    inputs: DenoiseInputs, *, skip_scored: bool = False, exclude: frozenset[str] = frozenset()
) -> ReflectionPlan:
    """Reflection over the stored relations (optionally only those this method has not judged yet)."""
    method = inputs.config.reflection
    reflector = (inputs.registries or Registries()).get(TRIPLE_REFLECTORS).create(method, inputs.config)
    relations = [r for r in inputs.store.graph.relations() if r.id not in exclude]
    if skip_scored:
        done = inputs.store.denoise.scored_relation_ids(method)
        relations = [r for r in relations if r.id not in done]
    names = {e.id: e.name for e in inputs.store.graph.entities()}
    ctx = ReflectContext(inputs.store, inputs.config, names, inputs.llm, inputs.reflect_stage)
    return plan_reflection(relations, reflector, ctx, method)


def plan_denoise(inputs: DenoiseInputs, *, resolve: bool = True, reflect: bool = True) -> DenoisePlan:
    """What a run would do, without writing the graph. Reflection is judged on the current relations,
    minus those that merging would turn into self-loops (after merging, support can only grow)."""
    out = DenoisePlan(names={e.id: e.name for e in inputs.store.graph.entities()})
    loops: frozenset[str] = frozenset()
    if resolve:
        out.graph, out.resolution, _ = plan_entities(inputs)
        group_of = {
            out.graph.ids[m]: i for i, g in enumerate(out.resolution.groups) if g.mode == "merge" for m in g.members
        }
        loops = frozenset(
            r.id
            for r in inputs.store.graph.relations()
            if r.source_id in group_of and group_of[r.source_id] == group_of.get(r.target_id)
        )
    if reflect and inputs.config.reflection != "none":
        out.reflection = plan_relations(inputs, exclude=loops)
    return out


@dataclass
class DenoiseOutcome:
    """What an applied run did: the run record, its plans and counts per stage."""

    run: DenoiseRun
    plan: DenoisePlan
    counts: dict[str, dict[str, int]] = field(default_factory=dict)


def apply_denoise(
    inputs: DenoiseInputs, *, resolve: bool = True, reflect: bool = True, only_unscored: bool = False
) -> DenoiseOutcome:
    """Resolve, then reflect on the merged graph; one undoable run (see :mod:`kgrag.denoise.apply`)."""
    store = inputs.store
    run, resumed = begin_run(store, new_run_id(store), datetime.now(UTC).isoformat(timespec="seconds"))
    plan = DenoisePlan()
    counts: dict[str, dict[str, int]] = {}
    if resolve:
        plan.graph, plan.resolution, _ = plan_entities(inputs)
        counts["resolve"] = {**plan.resolution.counts}
        counts["resolve"].update(
            apply_resolution(
                store, plan.resolution, plan.graph, run, inputs.summarizer, inputs.counter, resumed=resumed
            )
        )
    elif not resumed:
        with store.transaction():
            start_run(store, run, resumed)
    if reflect and inputs.config.reflection != "none":
        plan.reflection = plan_relations(inputs, skip_scored=only_unscored)
        plan.names = {e.id: e.name for e in store.graph.entities()}
        dropped = apply_reflection(store, plan.reflection, plan.names, run.id)
        counts["reflect"] = {**plan.reflection.counts, "relations_dropped": dropped}
    done = finish_run(store, run, {"counts": counts})
    return DenoiseOutcome(done, plan, counts)


def unscored_relations(inputs: DenoiseInputs) -> int:
    """Relations the configured reflector has not judged yet (what a resumed ``reflect`` stage does)."""
    done = inputs.store.denoise.scored_relation_ids(inputs.config.reflection)
    return sum(r.id not in done for r in inputs.store.graph.relations())
