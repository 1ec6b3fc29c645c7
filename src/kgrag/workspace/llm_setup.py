"""The workspace's LLM client, fitted to the server it talks to.

Before the first call: the server's profile (kind, context window, rejected JSON modes) is read from the
workspace's meta table, or probed when there is none or it is older than an hour
(:mod:`kgrag.models.llm.capabilities`); the configuration is fitted to the window
(:mod:`kgrag.models.llm.window_fit` for answers; :func:`fit_for_extraction` adds graph extraction's sizes
where extraction runs) instead of refusing to run; and what the run learns
(a rejected JSON mode, a window named in an error) is written back when the workspace closes, so the
next command neither probes again nor repeats a rejected request.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kgrag.core.registries import Registries

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import ChatProvider, EstimateAssumptions, LLMClient
    from kgrag.models.llm.capabilities import ServerProfile
    from kgrag.models.llm.estimate import StagePrediction
    from kgrag.store.base import MetaRepository, Store


@runtime_checkable
class ProfiledProvider(Protocol):
    """A provider that adapts to its server (the OpenAI-compatible HTTP provider)."""

    base_url: str
    model: str
    profile: ServerProfile
    profile_changed: bool

    def probe(self) -> ServerProfile: ...


def profile_store_key(provider: ProfiledProvider) -> str:
    from kgrag.models.llm.capabilities import profile_key

    return profile_key(provider.base_url, provider.model)


def unwrapped_provider(provider: object) -> object:
    """The provider inside recording or estimating wrappers (each exposes what it wraps as ``inner``)."""
    while (inner := getattr(provider, "inner", None)) is not None:
        provider = inner
    return provider


def load_profile(provider: ChatProvider, meta: MetaRepository, *, probe: bool) -> ServerProfile | None:
    """The stored profile of ``provider``'s server (probed afresh when ``probe`` and stale); None for providers
    that do not talk to a server."""
    from kgrag.models.llm.capabilities import ServerProfile

    provider = unwrapped_provider(provider)  # type: ignore[assignment]
    if not isinstance(provider, ProfiledProvider):
        return None
    stored = ServerProfile.from_json(meta.get(profile_store_key(provider)))
    if stored is not None:
        provider.profile = stored
    if probe and (stored is None or not stored.fresh(time.time())):
        provider.probe()
    return provider.profile


def save_profile(client: LLMClient, meta: MetaRepository) -> None:
    """Keep what the run learnt about the server (called when the workspace closes, on the main thread)."""
    inner = unwrapped_provider(client.runner.provider)
    if isinstance(inner, ProfiledProvider) and inner.profile_changed:
        meta.set(profile_store_key(inner), inner.profile.to_json())
        inner.profile_changed = False


def configured_client(
    config: KgragConfig, store: Store, *, estimate: bool = False, registries: Registries | None = None
) -> tuple[LLMClient, KgragConfig, list[str]]:
    """The client, the configuration fitted to the server's window, and a line per size that was changed.

    An estimate sends nothing, so it only reads a stored profile; a real run probes when it must.
    """
    from kgrag.models.llm import build_provider, create_llm_client
    from kgrag.models.llm.registry import LLM_PROVIDERS
    from kgrag.models.llm.window_fit import check_answer_window, fit_answer_to_window, fitted_line
    from kgrag.prompts.loader import PROMPT_SCHEMAS

    owner = registries or Registries()
    provider = build_provider(config.llm, owner.get(LLM_PROVIDERS))
    window = config.llm.context_window
    if window is None:
        profile = load_profile(provider, store.meta, probe=not estimate and config.llm.provider != "none")
        window = profile.context_window if profile is not None else None
    fitted, changes = fit_answer_to_window(config, window)
    check_answer_window(fitted)
    notes = fitted_line(window, changes) if window is not None else []
    assumptions = estimate_assumptions_for(fitted, store, owner) if estimate else None
    client = create_llm_client(
        fitted.llm,
        store,
        provider=provider,
        estimate=estimate,
        assumptions=assumptions,
        prompt_schemas=owner.get(PROMPT_SCHEMAS),
    )
    from kgrag.workspace.prompt_examples import apply_prompt_examples

    apply_prompt_examples(client, fitted, store)  # the stored verdict; indexing probes when there is none
    return client, fitted, notes


def fit_for_extraction(config: KgragConfig) -> tuple[KgragConfig, list[str]]:
    """``config`` (already fitted by :func:`configured_client`) with graph extraction's sizes fitted to
    ``llm.context_window`` and checked, and a note line when a size changed; called only where graph
    extraction may run, so a query never loads the extraction code."""
    from kgrag.graph.extract.preflight import check_extraction_window, fit_extraction_to_window
    from kgrag.models.llm.window_fit import fitted_line

    fitted, changes = fit_extraction_to_window(config)
    check_extraction_window(fitted)
    window = fitted.llm.context_window
    return fitted, fitted_line(window, changes) if window is not None else []


# Per-distinct-name rate of the summaries entity merges redo (merged descriptions an estimate's stand-in
# graph does not have), measured on the sample corpus with the realistic scripted responder
# (bench/bench_estimate.py). Community reports, merge confirmations and reflection batches are counted on
# the stand-in graph (kgrag.graph.extract.structural), not predicted.
RESUMMARIES_PER_NAME = 0.023


def _stage_predictions(config: KgragConfig, stages: Sequence[str]) -> tuple[StagePrediction, ...]:
    from kgrag.models.llm.estimate import StagePrediction

    if "resolve" not in stages:
        return ()
    summary = config.graph.max_description_tokens
    return (StagePrediction("summaries after merges", RESUMMARIES_PER_NAME, summary + 200, summary, "denoise.resolve"),)


def estimate_assumptions_for(
    config: KgragConfig, store: Store, registries: Registries | None = None
) -> EstimateAssumptions:
    """The estimate's assumptions for ``config`` and its indexing pipeline (``indexing.pipeline``, the one an
    index run uses), calibrated by the workspace's own ledger where it has real calls."""
    from kgrag.graph.extract.settings import llm_settings
    from kgrag.indexing.registries import INDEX_PIPELINES
    from kgrag.models.llm import estimate_assumptions

    graph = config.graph
    base = estimate_assumptions(config.llm, graph.max_description_tokens, gleaning=llm_settings(config).gleaning)
    name = config.indexing.pipeline
    pipelines = (registries or Registries()).get(INDEX_PIPELINES)
    entry = pipelines.load(name) if name in pipelines else ()
    stages: Sequence[str] = entry() if callable(entry) else entry  # a plug-in pipeline may be a callable
    base = _stand_in_shares(replace(base, stages=_stage_predictions(config, stages)), store)
    return calibrate_assumptions(base, store, config.llm.model or "")


def _stand_in_shares(assumptions: EstimateAssumptions, store: Store) -> EstimateAssumptions:
    """With the shares of the estimate's stand-in graph the last ``--probe`` measured (none: keep it whole)."""
    from kgrag.workspace.estimate_probe import META_SHARES

    stored = (store.meta.get(META_SHARES) or "").split()
    try:
        names, relations = (float(value) for value in stored)
    except ValueError:
        return assumptions
    return replace(assumptions, name_share=names, relation_share=relations)


RECENT_RUNS = 20  # calibration reads the ledger of this many newest runs at most


def calibrate_assumptions(assumptions: EstimateAssumptions, store: Store, model: str | None) -> EstimateAssumptions:
    """Replace assumed reply sizes and rates by what ``model``'s own recent sent calls measured
    (:func:`~kgrag.models.llm.reply_stats.measure_replies`: the reply size, the re-asks and retries)."""
    from kgrag.models.llm.estimate import EXTRACTION_PROMPTS
    from kgrag.models.llm.reply_stats import measure_replies, replies_by_prompt

    ledger = store.llm_ledger
    runs = list(reversed(ledger.run_ids()))[:RECENT_RUNS]
    recent = [record for run in runs for record in reversed(ledger.calls(run))]
    assumptions = replace(assumptions, replies=replies_by_prompt(recent, model=model, skip=EXTRACTION_PROMPTS))
    extract = measure_replies(recent, model=model, stage="index.extract")
    if extract is None:
        return assumptions
    glean = measure_replies(recent, model=model, stage="index.glean")
    glean_calls = glean.calls if glean is not None else 0
    first_calls = extract.calls / (1 + extract.follow_up_rate)
    return replace(
        assumptions,
        extraction_completion=extract.mean_completion,
        follow_up_rate=extract.follow_up_rate,
        glean_rate=min(1.0, glean_calls / first_calls) if assumptions.glean_rate else 0.0,
        glean_completion_share=(glean.mean_completion / extract.mean_completion)
        if glean is not None and extract.mean_completion
        else assumptions.glean_completion_share,
        calibrated=extract.note("extraction"),
    )
