"""A workspace's LLM client, fitted to the server it talks to.

Before the first call: the server's profile (kind, context window, rejected JSON modes) is read from the
store's meta table, or probed when there is none or it is older than an hour
(:mod:`kgrag.models.llm.capabilities`); the configuration is fitted to the window
(:mod:`kgrag.models.llm.window_fit` for answers; graph extraction's sizes are fitted where extraction runs,
:func:`kgrag.graph.extract.preflight.fit_for_extraction`) instead of refusing to run; and what the run
learns (a rejected JSON mode, a window named in an error) is written back when the workspace closes, so
the next command neither probes again nor repeats a rejected request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kgrag.core.registries import Registries
from kgrag.models.llm.profile_store import load_profile

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import EstimateAssumptions, LLMClient
    from kgrag.store.base import Store

Assumptions = Callable[["KgragConfig"], "EstimateAssumptions"]


def configured_client(
    config: KgragConfig, store: Store, registries: Registries, *, estimate: Assumptions | None = None
) -> tuple[LLMClient, KgragConfig, list[str]]:
    """The client (its provider and prompt schemas from ``registries``), the configuration fitted to the
    server's window, and a line per size that was changed.

    ``estimate`` makes an estimating client (nothing is sent) with the assumptions it gives for the fitted
    configuration; an estimate only reads a stored profile, a real run probes when it must.
    """
    from kgrag.models.llm import build_provider, create_llm_client
    from kgrag.models.llm.prompt_examples import apply_prompt_examples
    from kgrag.models.llm.registry import LLM_PROVIDERS
    from kgrag.models.llm.window_fit import check_answer_window, fit_answer_to_window, fitted_line
    from kgrag.prompts.loader import PROMPT_SCHEMAS

    provider = build_provider(config.llm, registries.get(LLM_PROVIDERS))
    window = config.llm.context_window
    if window is None:
        probe = estimate is None and config.llm.provider != "none"
        profile = load_profile(provider, store.meta, probe=probe)
        window = profile.context_window if profile is not None else None
    fitted, changes = fit_answer_to_window(config, window)
    check_answer_window(fitted)
    notes = fitted_line(window, changes) if window is not None else []
    client = create_llm_client(
        fitted.llm,
        store,
        provider=provider,
        estimate=estimate is not None,
        assumptions=estimate(fitted) if estimate is not None else None,
        prompt_schemas=registries.get(PROMPT_SCHEMAS),
    )
    apply_prompt_examples(client, fitted, store)  # the stored verdict; indexing probes when there is none
    return client, fitted, notes
