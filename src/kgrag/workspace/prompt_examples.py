"""Prompts sized to the model: whether the workspace's LLM client shows worked examples (``llm.prompt_examples``).

``always`` and ``never`` decide outright. ``auto`` reads the verdict kept in the server's profile; when
there is none, a real run asks the model once (:mod:`kgrag.models.llm.examples_probe`) and keeps the answer
in the profile, which the workspace writes back when it closes. An estimate never asks: it reads the stored
verdict, else assumes examples (the larger prompts). Providers that do not talk to a server (scripted,
recorded replies) keep the examples, so recorded requests still match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.workspace.llm_setup import ProfiledProvider, profile_store_key, unwrapped_provider

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import LLMClient
    from kgrag.store.base import Store


def apply_prompt_examples(client: LLMClient, config: KgragConfig, store: Store, *, estimate: bool) -> None:
    """Set whether ``client`` shows worked examples, probing the model once when ``auto`` must decide."""
    mode = config.llm.prompt_examples
    if mode != "auto":
        client.use_examples(mode == "always")
        return
    provider = unwrapped_provider(client.runner.provider)
    if not isinstance(provider, ProfiledProvider):
        return
    profile = provider.profile
    if profile.examples is None:
        from kgrag.models.llm.capabilities import ServerProfile

        stored = ServerProfile.from_json(store.meta.get(profile_store_key(provider)))
        profile.examples = stored.examples if stored is not None else None
    if profile.examples is None and not estimate:
        from kgrag.models.llm.examples_probe import needs_examples

        verdict = needs_examples(client)
        if verdict is not None:
            profile.examples, provider.profile_changed = verdict, True
    client.use_examples(profile.examples is not False)
