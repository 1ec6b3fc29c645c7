"""Stratified sampling by question type: a smaller question set with the same type mix, reproducible
from its seed, so a quick run on 100 questions answers the same question as the full set, only with
wider error bars."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem


def _allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation by largest remainder, at least one per type while n allows."""
    total = sum(sizes.values())
    exact = {t: n * size / total for t, size in sizes.items()}
    quota = {t: min(sizes[t], max(1, int(exact[t]))) for t in sizes}
    order = sorted(sizes, key=lambda t: (exact[t] - int(exact[t]), sizes[t], t), reverse=True)
    while sum(quota.values()) > n:
        biggest = max(quota, key=lambda t: (quota[t], t))
        quota[biggest] -= 1
    for t in order * n:
        if sum(quota.values()) >= n:
            break
        if quota[t] < sizes[t]:
            quota[t] += 1
    return quota


def stratified_sample(items: Sequence[QAItem], n: int, seed: int = 0) -> list[QAItem]:
    """``n`` items with each question type's share kept (largest remainder), in dataset order."""
    if n < 1:
        raise KgragError(f"sample size must be at least 1 (got {n})")
    if n >= len(items):
        return list(items)
    by_type: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        by_type[item.question_type].append(index)
    quota = _allocate({t: len(ix) for t, ix in by_type.items()}, n)
    rng = random.Random(seed)
    chosen: set[int] = set()
    for question_type in sorted(by_type):
        chosen.update(rng.sample(by_type[question_type], quota[question_type]))
    return [items[i] for i in sorted(chosen)]
