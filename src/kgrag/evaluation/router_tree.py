"""A shallow policy tree: question features → the pipeline with the most evidence recall.

Unlike a classifier, the tree is grown on the rewards themselves (every pipeline's recall on every
fitting question), so a split is worth what it adds in recall, not in labels: two pipelines that tie on a
question cost nothing either way. A leaf leaves the *default arm* — the best single pipeline over all
fitting questions — only when its questions favour another pipeline by more than ``z`` standard errors of
the paired difference; otherwise it keeps the default. A split that moves no leaf off the default adds
nothing and is not made, so on noise the tree stays a single leaf (the best single pipeline), and a policy
is never worse than that pipeline by construction on the questions it was fitted on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.retrieval.router_policy import FEATURES, Node, RouterPolicy


@dataclass(frozen=True)
class TreeSettings:
    """``max_depth`` levels of splits, at least ``min_leaf`` questions per leaf, ``z`` standard errors of
    advantage before a leaf leaves the default pipeline, at most ``thresholds`` cut points per feature."""

    max_depth: int = 3
    min_leaf: int = 40
    z: float = 1.0
    thresholds: int = 48


def best_single(rewards: np.ndarray) -> int:
    """Column of the best mean reward (ties: the first column, the cheapest by the caller's order)."""
    return int(np.argmax(rewards.mean(axis=0)))


def leaf_choice(rewards: np.ndarray, default: int, z: float) -> int:
    """The column a leaf holding these rows picks: its best one when it beats ``default`` by more than
    ``z`` standard errors of the paired difference, else ``default``."""
    best = best_single(rewards)
    if best == default or len(rewards) < 2:
        return default
    diff = rewards[:, best] - rewards[:, default]
    error = float(diff.std(ddof=1)) / math.sqrt(len(diff))
    return best if float(diff.mean()) > z * error else default


def _cut_points(values: np.ndarray, limit: int) -> list[float]:
    unique = np.unique(values)
    if len(unique) < 2:
        return []
    mids = (unique[:-1] + unique[1:]) / 2
    if len(mids) > limit:  # evenly spaced among the midpoints: a cut always falls between two values
        mids = mids[np.unique(np.linspace(0, len(mids) - 1, limit).round().astype(int))]
    return [float(m) for m in mids]


class _Grower:
    def __init__(self, x: np.ndarray, rewards: np.ndarray, names: Sequence[str], settings: TreeSettings) -> None:
        self.x, self.rewards, self.names, self.settings = x, rewards, names, settings
        self.default = best_single(rewards)

    def value(self, rows: np.ndarray) -> tuple[int, float]:
        choice = leaf_choice(self.rewards[rows], self.default, self.settings.z)
        return choice, float(self.rewards[rows, choice].sum())

    def split(self, rows: np.ndarray) -> tuple[float, int, float]:
        """(gain, feature column, threshold) of the best split of ``rows`` (gain 0: none helps)."""
        _, here = self.value(rows)
        best = (0.0, -1, 0.0)
        for column in range(self.x.shape[1]):
            values = self.x[rows, column]
            for cut in _cut_points(values, self.settings.thresholds):
                left, right = rows[values <= cut], rows[values > cut]
                if min(len(left), len(right)) < self.settings.min_leaf:
                    continue
                gain = self.value(left)[1] + self.value(right)[1] - here
                if gain > best[0] + 1e-9:
                    best = (gain, column, cut)
        return best

    def grow(self, rows: np.ndarray, depth: int, labels: Sequence[str]) -> Node:
        choice, _ = self.value(rows)
        leaf = Node(pipeline=labels[choice], questions=len(rows))
        if depth >= self.settings.max_depth or len(rows) < 2 * self.settings.min_leaf:
            return leaf
        _, column, cut = self.split(rows)
        if column < 0:
            return leaf
        values = self.x[rows, column]
        le = self.grow(rows[values <= cut], depth + 1, labels)
        gt = self.grow(rows[values > cut], depth + 1, labels)
        if le.pipeline is not None and le.pipeline == gt.pipeline:
            return Node(pipeline=le.pipeline, questions=len(rows))
        return Node(feature=self.names[column], threshold=round(cut, 6), le=le, gt=gt, questions=len(rows))


def fit_policy(
    features: Sequence[dict[str, float]],
    rewards: np.ndarray,
    pipelines: Sequence[str],
    settings: TreeSettings | None = None,
    dataset: str = "",
) -> RouterPolicy:
    """Fit the tree: ``features[i]`` of question i, ``rewards[i, j]`` the recall of ``pipelines[j]`` on it."""
    settings = settings or TreeSettings()
    if rewards.shape != (len(features), len(pipelines)) or not len(features):
        raise ValueError("rewards must hold one row per question and one column per pipeline")
    names = [name for name in FEATURES if any(name in row for row in features)]
    x = np.array([[row.get(name, 0.0) for name in names] for row in features], dtype=float)
    grower = _Grower(x, rewards, names, settings)
    root = grower.grow(np.arange(len(features)), 0, list(pipelines))
    return RouterPolicy(
        root=root,
        default=pipelines[grower.default],
        pipelines=tuple(pipelines),
        fitted_on=len(features),
        dataset=dataset,
    )
