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

from typing import TYPE_CHECKING

from kgrag.core.registries import Registries
from kgrag.models.llm.profile_store import load_profile

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import LLMClient
    from kgrag.store.base import Store


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
    if estimate:
        from kgrag.indexing.estimate_assumptions import estimate_assumptions_for

        assumptions = estimate_assumptions_for(fitted, store, owner)
    else:
        assumptions = None
    client = create_llm_client(
        fitted.llm,
        store,
        provider=provider,
        estimate=estimate,
        assumptions=assumptions,
        prompt_schemas=owner.get(PROMPT_SCHEMAS),
    )
    from kgrag.models.llm.prompt_examples import apply_prompt_examples

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
