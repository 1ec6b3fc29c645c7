"""Prompts sized to the model: whether the workspace's LLM client shows worked examples (``llm.prompt_examples``).

``always`` and ``never`` decide outright. ``auto`` reads the verdict kept in the server's profile
(:func:`apply_prompt_examples`, when the client is made; examples until a verdict is known). Only the
indexing path asks the model (:func:`decide_prompt_examples`, before its first extraction or report call:
the probe is an extraction call, and those prompts are what it sizes); it keeps the answer in the
profile, which the workspace writes back when it closes. A query or an estimate never asks. Providers
that do not talk to a server (scripted, recorded replies) keep the examples, so recorded requests still
match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.models.llm.base import innermost
from kgrag.models.llm.profile_store import ProfiledProvider, profile_store_key

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.models.llm import LLMClient
    from kgrag.store.base import Store


def apply_prompt_examples(client: LLMClient, config: KgragConfig, store: Store) -> None:
    """Set whether ``client`` shows worked examples: ``llm.prompt_examples``, or for ``auto`` the verdict
    stored in the server's profile (examples while there is none). Sends nothing."""
    mode = config.llm.prompt_examples
    if mode != "auto":
        client.use_examples(mode == "always")
        return
    provider = innermost(client.runner.provider)
    if not isinstance(provider, ProfiledProvider):
        return
    profile = provider.profile
    if profile.examples is None:
        from kgrag.models.llm.capabilities import ServerProfile

        stored = ServerProfile.from_json(store.meta.get(profile_store_key(provider)))
        profile.examples = stored.examples if stored is not None else None
    client.use_examples(profile.examples is not False)


def decide_prompt_examples(client: LLMClient, config: KgragConfig) -> None:
    """For ``auto`` with no verdict yet: probe the model once, keep the verdict in its profile and apply it
    (an unanswered probe leaves the examples on and undecided, to ask again next run)."""
    if config.llm.prompt_examples != "auto":
        return
    provider = innermost(client.runner.provider)
    if not isinstance(provider, ProfiledProvider) or provider.profile.examples is not None:
        return
    from kgrag.models.llm.examples_probe import needs_examples

    verdict = needs_examples(client)
    if verdict is not None:
        provider.profile.examples, provider.profile_changed = verdict, True
        client.use_examples(verdict)
