"""The workspace's LLM client, fitted to the server it talks to.

Before the first call: the server's profile (kind, context window, rejected JSON modes) is read from the
workspace's meta table, or probed when there is none or it is older than an hour
(:mod:`kgrag.models.llm.capabilities`); the configuration is fitted to the window
(:func:`kgrag.graph.extract.preflight.fit_to_window`) instead of refusing to run; and what the run learns
(a rejected JSON mode, a window named in an error) is written back when the workspace closes, so the
next command neither probes again nor repeats a rejected request.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import ChatProvider, LLMClient
    from kgrag.models.llm.capabilities import ServerProfile
    from kgrag.store.base import MetaRepository, Store


@runtime_checkable
class ProfiledProvider(Protocol):
    """A provider that adapts to its server (the OpenAI-compatible HTTP provider)."""

    base_url: str
    model: str
    profile: ServerProfile
    profile_changed: bool

    def probe(self) -> ServerProfile: ...


def _key(provider: ProfiledProvider) -> str:
    from kgrag.models.llm.capabilities import profile_key

    return profile_key(provider.base_url, provider.model)


def load_profile(provider: ChatProvider, meta: MetaRepository, *, probe: bool) -> ServerProfile | None:
    """The stored profile of ``provider``'s server (probed afresh when ``probe`` and stale); None for providers
    that do not talk to a server."""
    from kgrag.models.llm.capabilities import ServerProfile

    if not isinstance(provider, ProfiledProvider):
        return None
    stored = ServerProfile.from_json(meta.get(_key(provider)))
    if stored is not None:
        provider.profile = stored
    if probe and (stored is None or not stored.fresh(time.time())):
        provider.probe()
    return provider.profile


def save_profile(client: LLMClient, meta: MetaRepository) -> None:
    """Keep what the run learnt about the server (called when the workspace closes, on the main thread)."""
    provider = client.runner.provider
    inner = getattr(provider, "_inner", provider)  # an estimating wrapper never learns anything new
    if isinstance(inner, ProfiledProvider) and inner.profile_changed:
        meta.set(_key(inner), inner.profile.to_json())
        inner.profile_changed = False


def configured_client(
    config: KgragConfig, store: Store, *, estimate: bool = False
) -> tuple[LLMClient, KgragConfig, list[str]]:
    """The client, the configuration fitted to the server's window, and a line per size that was changed.

    An estimate sends nothing, so it only reads a stored profile; a real run probes when it must.
    """
    from kgrag.graph.extract.preflight import fit_to_window, preflight_context_window
    from kgrag.models.llm import build_provider, create_llm_client, estimate_assumptions

    provider = build_provider(config.llm)
    window = config.llm.context_window
    if window is None:
        profile = load_profile(provider, store.meta, probe=not estimate and config.llm.provider != "none")
        window = profile.context_window if profile is not None else None
    fitted, notes = fit_to_window(config, window)
    preflight_context_window(fitted)
    assumptions = None
    if estimate:
        graph = fitted.graph
        assumptions = estimate_assumptions(fitted.llm, graph.max_description_tokens, gleaning=graph.gleaning)
    client = create_llm_client(fitted.llm, store, provider=provider, estimate=estimate, assumptions=assumptions)
    return client, fitted, notes
