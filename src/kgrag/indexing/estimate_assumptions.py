"""What an estimate (``kgrag index --estimate``) assumes about the LLM's replies for a workspace: the
indexing pipeline's stages, the stand-in graph's shares (measured by the last ``--probe`` or on the graph
the workspace already holds, :mod:`kgrag.indexing.estimate_shares`), and reply sizes and rates calibrated
by the workspace's own ledger where it has real calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kgrag.core.registries import Registries

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.core.llm_usage import CallRecord
    from kgrag.indexing.estimate_communities import CommunityCounter
    from kgrag.indexing.estimate_merges import GroupCounter
    from kgrag.indexing.estimate_stored import StoredGraph
    from kgrag.models.llm import EstimateAssumptions
    from kgrag.models.llm.estimate_assumed import StagePrediction
    from kgrag.models.llm.estimate_cuts import CutChance
    from kgrag.models.llm.reply_stats import ReplyStats
    from kgrag.store.base import Store

META_SHARES = "estimate.stand_in_shares"  # "names relations units": what the model returned per stand-in item
META_PROBE_NAMES = "estimate.probe_names"  # mean distinct names of the units the last probe extracted
GRAPH_SOURCE = "the stored graph"  # what measured the stand-in's shares when the stored graph did

# Per-distinct-name rate of the summaries entity merges redo (merged descriptions an estimate's stand-in
# graph does not have): the fallback for a workspace whose ledger holds no resolution with LLM confirmation
# (then the rate is measured per confirmation, estimate_merges.merge_summaries). A single measurement: the
# sample corpus (examples/sample) indexed with the denoised pipeline against the realistic scripted responder
# (bench/bench_estimate.py, when the estimate's stages were added), never checked on another server.
# Community reports, merge confirmations and reflection batches are counted on the stand-in graph
# (kgrag.graph.extract.structural), not predicted.
RESUMMARIES_PER_NAME = 0.023


def _stage_predictions(config: KgragConfig, stages: Sequence[str]) -> tuple[StagePrediction, ...]:
    """The stages predicted per distinct name: the summaries after merges, when the pipeline resolves
    (with LLM confirmation only a confirmed group is merged: no confirmation counted, none predicted)."""
    from kgrag.models.llm.estimate_assumed import AFTER_MERGES, StagePrediction
    from kgrag.models.llm.estimate_counted import MERGE_PROMPT

    if "resolve" not in stages:
        return ()
    summary = config.graph.max_description_tokens
    requires = MERGE_PROMPT if config.denoise.llm_confirm else ""
    return (StagePrediction(AFTER_MERGES, RESUMMARIES_PER_NAME, summary + 200, summary, "denoise.resolve", requires),)


def estimate_assumptions_for(
    config: KgragConfig, store: Store, registries: Registries | None = None
) -> EstimateAssumptions:
    """The estimate's assumptions for ``config`` and its indexing pipeline (``indexing.pipeline``, the one an
    index run uses), calibrated by the workspace's own ledger where it has real calls."""
    from kgrag.graph.extract.settings import llm_settings
    from kgrag.indexing.estimate_failures import held_back
    from kgrag.indexing.estimate_stored import read_stored_graph
    from kgrag.indexing.registries import INDEX_PIPELINES
    from kgrag.models.llm import estimate_assumptions

    graph = config.graph
    base = estimate_assumptions(config.llm, graph.max_description_tokens, gleaning=llm_settings(config).gleaning)
    name = config.indexing.pipeline
    pipelines = (registries or Registries()).get(INDEX_PIPELINES)
    entry = pipelines.load(name) if name in pipelines else ()
    stages: Sequence[str] = entry() if callable(entry) else entry  # a plug-in pipeline may be a callable
    base = replace(base, stages=_stage_predictions(config, stages))
    stored = read_stored_graph(store, llm_settings(config).unit_tokens)  # once: both measures read it
    base = _stand_in_shares(base, store, stored, _counters(config, registries))
    base = held_back(base, store, stages)
    base = _described(base, store, stored, config)
    return calibrate_assumptions(base, store, config.llm.model or "", stored)


def _described(
    assumptions: EstimateAssumptions, store: Store, stored: StoredGraph | None, config: KgragConfig
) -> EstimateAssumptions:
    """With the model's own names and description lengths (the summaries' prediction) where the probe or
    the stored graph measured them (:mod:`kgrag.indexing.estimate_descriptions`), and the summary
    prompt's own tokens counted."""
    from kgrag.indexing.estimate_descriptions import described_for, summary_prompt_tokens

    if assumptions.summary_limit is None:
        return assumptions
    described = described_for(store, stored)
    if described is None:
        return assumptions
    overhead = summary_prompt_tokens(config.llm.prompts_dir)
    return replace(
        assumptions, described=described, summary_overhead_tokens=overhead or assumptions.summary_overhead_tokens
    )


def _counters(config: KgragConfig, registries: Registries | None) -> tuple[CommunityCounter, GroupCounter]:
    """What the stored graph's communities and resolution groups are counted with."""
    from kgrag.indexing.estimate_communities import community_counter
    from kgrag.indexing.estimate_merges import group_counter

    owner = registries or Registries()
    return community_counter(config.communities, owner), group_counter(config.denoise, owner)


def _stand_in_shares(
    assumptions: EstimateAssumptions, store: Store, stored_graph: StoredGraph | None,
    counters: tuple[CommunityCounter, GroupCounter],
) -> EstimateAssumptions:  # fmt: skip
    """With the shares of the estimate's stand-in graph measured on the most units: by the last ``--probe``
    or on the workspace's stored graph (none measured: the stand-in is kept whole)."""
    from kgrag.indexing.estimate_shares import Shares, graph_shares

    probed = Shares.parse(store.meta.get(META_SHARES))
    stored = graph_shares(stored_graph, counters[0], counters[1]) if stored_graph is not None else None
    chosen = max((s for s in (probed, stored) if s is not None), key=lambda s: s.units, default=None)
    if chosen is None:
        return assumptions
    source = "the probe" if chosen is probed else GRAPH_SOURCE
    return replace(
        assumptions,
        name_share=chosen.names,
        relation_share=chosen.relations,
        entity_description=chosen.entity_description,
        relation_description=chosen.relation_description,
        report_share=chosen.communities,
        merge_share=chosen.merges,
        shares_source=f"{source} ({chosen.units} units)",
        glean_by_stand_in=assumptions.glean_rate > 0,  # gleaning on: decided per unit on the stand-in
    )


RECENT_RUNS = 20  # calibration reads the ledger of this many newest runs at most


def calibrate_assumptions(
    assumptions: EstimateAssumptions, store: Store, model: str | None, stored: StoredGraph | None = None
) -> EstimateAssumptions:
    """Replace assumed reply sizes and rates by what ``model``'s own recent sent calls measured
    (:func:`~kgrag.models.llm.reply_stats.measure_replies`: the reply size, the re-asks and retries, and the
    first passes cut at the token limit, :func:`_cuts`, their units' names read on ``stored``)."""
    from kgrag.models.llm.estimate import EXTRACTION_PROMPTS
    from kgrag.models.llm.estimate_loops import LoopShare
    from kgrag.models.llm.estimate_range import extraction_point_rate, reply_size_factors
    from kgrag.models.llm.reply_stats import measure_replies, replies_by_prompt, samples_by_prompt

    ledger = store.llm_ledger
    runs = list(reversed(ledger.run_ids()))[:RECENT_RUNS]
    calls = {run: ledger.calls(run) for run in runs}
    recent = [record for run in runs for record in reversed(calls[run])]
    assumptions = replace(
        assumptions,
        replies=replies_by_prompt(recent, model=model, skip=EXTRACTION_PROMPTS),
        reply_samples=samples_by_prompt(recent, model=model, skip=EXTRACTION_PROMPTS),
    )
    assumptions = _merge_summaries(assumptions, store, [calls[run] for run in reversed(runs)], model)
    extract = measure_replies(recent, model=model, stage="index.extract")
    if extract is None:
        return assumptions
    glean = measure_replies(recent, model=model, stage="index.glean")
    sample = extract.sample()
    glean_calls = glean.calls if glean is not None else 0
    # first passes priced at the first passes' replies, follow-ups at theirs (a rejected reply is not a first
    # pass's size); a looped reply is priced apart, at what was read (loops)
    first = extract.first_completion
    reply = extract.unlooped_completion if first is None else first
    return replace(
        assumptions,
        extraction_completion=reply,
        follow_up_completion=extract.follow_up_completion,
        extraction_names=_probe_names(store),
        follow_up_rate=extraction_point_rate(sample),
        extract_sample=sample,
        glean_rate=min(1.0, glean_calls / extract.first_calls) if assumptions.glean_rate else 0.0,
        glean_completion_share=(glean.mean_completion / reply)
        if glean is not None and reply
        else assumptions.glean_completion_share,
        loops=LoopShare(extract.loop_share, extract.loop_completion, extract.loops, extract.first_calls),
        reply_size=reply_size_factors(reply, extract.unlooped_sd, extract.calls - extract.loops),
        calibrated=extract.note("extraction"),
        cuts=_cuts(extract, stored),
        **_glean_fit(assumptions, stored, recent, model),
    )


def _glean_fit(
    assumptions: EstimateAssumptions, stored: StoredGraph | None, recent: Sequence[CallRecord], model: str | None
) -> dict[str, Any]:
    """The gleaning decision's scale fitted on the units the ledger's run gleaned
    (:mod:`kgrag.indexing.estimate_glean_fit`), when gleaning is decided per unit on a stand-in whose
    shares the stored graph measured; no change otherwise."""
    from kgrag.indexing.estimate_glean_fit import fit_glean_scale

    if not assumptions.glean_by_stand_in or stored is None or not assumptions.shares_source.startswith(GRAPH_SOURCE):
        return {}
    fit = fit_glean_scale(stored, recent, model, (assumptions.name_share, assumptions.relation_share))
    return {"glean_scale": fit.scale, "glean_fit": fit.line()} if fit is not None else {}


def _cuts(extract: ReplyStats, stored: StoredGraph | None) -> CutChance | None:
    """The first passes' cut chance (:mod:`kgrag.models.llm.estimate_cuts`) from the linked first passes of
    ``extract`` whose unit the stored graph holds (its distinct names read on its text; a unit not stored,
    such as a probe's, is left out)."""
    from kgrag.models.llm.estimate import distinct_names
    from kgrag.models.llm.estimate_cuts import fit_cut_chance

    wanted = {key for key, _, _ in extract.firsts}  # the names are read on these units only
    units = [unit for unit in stored.units if unit.key in wanted] if stored else []
    names = {unit.key: len(distinct_names(unit.text)) for unit in units}
    firsts = [(names[key], size, cut) for key, size, cut in extract.firsts if key in names]
    return fit_cut_chance(firsts, extract.per_cut, extract.per_whole)


def _merge_summaries(
    assumptions: EstimateAssumptions, store: Store, runs: Sequence[Sequence[CallRecord]], model: str | None
) -> EstimateAssumptions:
    """With the summaries after merges measured per merge confirmation on ``runs`` (the ledger's, oldest
    first; :func:`~kgrag.indexing.estimate_merges.merge_summaries`) instead of the per-name rate, when
    they follow LLM confirmations and the workspace has applied a resolution (a probe's confirmations
    merge nothing, so a probe alone measures nothing)."""
    from kgrag.denoise.apply import APPLIED
    from kgrag.indexing.estimate_merges import merge_summaries
    from kgrag.models.llm.estimate_assumed import AFTER_MERGES
    from kgrag.models.llm.estimate_counted import MERGE_PROMPT

    stage = next((s for s in assumptions.stages if s.stage == AFTER_MERGES), None)
    if stage is None or stage.requires != MERGE_PROMPT:
        return assumptions
    if not any(run.status == APPLIED for run in store.denoise.runs()):
        return assumptions
    measured = merge_summaries(runs, model)
    if measured is None:
        return assumptions
    kept = tuple(s for s in assumptions.stages if s is not stage)
    return replace(assumptions, stages=kept, merge_summaries=measured)


def _probe_names(store: Store) -> float | None:
    """The mean distinct names of the units the last ``--probe`` extracted (None: no probe ran)."""
    try:
        return float(store.meta.get(META_PROBE_NAMES) or "")
    except ValueError:
        return None
