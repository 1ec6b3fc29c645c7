"""Metric profiles: which variant of each metric a plain name means.

A profile is a registry-name suffix. ``kgrag`` (the default) keeps every name as it is; ``graphrag-bench``
maps ``answer-accuracy`` to ``answer-accuracy@graphrag-bench`` and so on, for every metric that has such a
variant in the ``metric`` registry. A name that already carries a suffix is explicit and stays; the
suffix ``@kgrag`` names kgrag's own variant whatever the profile. So ``--metrics`` can mix variants in
one run, and scores of the two variants are stored under distinct names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.core.registry import Registry

PROFILES = ("kgrag", "graphrag-bench")
DEFAULT_PROFILE = "kgrag"


def profile_names(names: Sequence[str], profile: str, registry: Registry[Any]) -> list[str]:
    """The registry names that ``names`` mean under ``profile`` (order kept, duplicates dropped)."""
    if profile not in PROFILES:
        raise KgragError(f"evaluation.metric_profile must be one of {', '.join(PROFILES)} (got {profile!r})")
    resolved: list[str] = []
    for name in names:
        chosen = _resolve(name, profile, registry)
        if chosen not in resolved:
            resolved.append(chosen)
    return resolved


def _resolve(name: str, profile: str, registry: Registry[Any]) -> str:
    if name.endswith(f"@{DEFAULT_PROFILE}"):
        return name.removesuffix(f"@{DEFAULT_PROFILE}")
    if "@" in name or profile == DEFAULT_PROFILE:
        return name
    variant = f"{name}@{profile}"
    return variant if variant in registry else name
