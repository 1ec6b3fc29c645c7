"""Optional string similarity on candidate names (feldt-hellstrom-2026 used Levenshtein after kNN).

Embeddings put "Type 1 diabetes" next to "Type 2 diabetes"; a name check vetoes such pairs. rapidfuzz's
normalised similarities are in [0, 1] and run in C, so the filter costs little next to the matrix work.
"""

from __future__ import annotations

from collections.abc import Callable

from rapidfuzz.distance import JaroWinkler, Levenshtein

from kgrag.core.errors import ConfigError

StringSimilarity = Callable[[str, str], float]

_FILTERS: dict[str, StringSimilarity] = {
    "jaro-winkler": lambda a, b: float(JaroWinkler.normalized_similarity(a.casefold(), b.casefold())),
    "levenshtein": lambda a, b: float(Levenshtein.normalized_similarity(a.casefold(), b.casefold())),
}


def string_similarity(name: str) -> StringSimilarity | None:
    """The similarity function named by ``denoise.string_filter`` (``none`` → None)."""
    if name == "none":
        return None
    if name not in _FILTERS:
        raise ConfigError(f"denoise.string_filter: unknown {name!r}; choose none, {', '.join(_FILTERS)}")
    return _FILTERS[name]
