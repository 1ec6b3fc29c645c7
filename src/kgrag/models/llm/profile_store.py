"""A server's profile (kind, context window, rejected JSON modes, the worked-examples verdict), kept in a
store's meta table so the next command neither probes again nor repeats a rejected request."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kgrag.models.llm.base import innermost

if TYPE_CHECKING:
    from kgrag.models.llm import ChatProvider, LLMClient
    from kgrag.models.llm.capabilities import ServerProfile
    from kgrag.store.base import MetaRepository


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


def load_profile(provider: ChatProvider, meta: MetaRepository, *, probe: bool) -> ServerProfile | None:
    """The stored profile of ``provider``'s server (probed afresh when ``probe`` and stale); None for providers
    that do not talk to a server."""
    from kgrag.models.llm.capabilities import ServerProfile

    provider = innermost(provider)
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
    inner = innermost(client.runner.provider)
    if isinstance(inner, ProfiledProvider) and inner.profile_changed:
        meta.set(profile_store_key(inner), inner.profile.to_json())
        inner.profile_changed = False
