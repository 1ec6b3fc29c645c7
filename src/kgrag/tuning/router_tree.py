"""A shallow policy tree: question features → the pipeline with the most evidence recall.

Unlike a classifier, the tree is grown on the rewards themselves (every pipeline's recall on every
fitting question), so a split is worth what it adds in recall, not in labels: two pipelines that tie on a
question cost nothing either way. The *default arm* is the best single pipeline over the fitting
questions, or a cheaper one (less context handed over) that is not worse by more than ``z`` standard
errors. A leaf leaves the default only when its questions favour another pipeline by more than ``z``
standard errors of the paired difference. A split that moves no leaf off the default is not made, so on
noise the tree stays a single leaf (the default), and on the questions it was fitted on a policy never
recalls less than its default.

Two guards against rules that only fit noise: the tree first splits on *segment* features (requests to
write something, then questions in several parts), so rules learned on the many single questions never
decide for the others; and each segment's rules (the whole tree when there is no segment) are kept only
when, regrown on inner folds, they beat the default on the questions left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.retrieval.steps.router_policy import FEATURES, Node, RouterPolicy


@dataclass(frozen=True)
class TreeSettings:
    """``max_depth`` levels of splits, at least ``min_leaf`` questions per leaf, ``z`` standard errors of
    advantage before a leaf leaves the default pipeline, at most ``thresholds`` cut points per feature."""

    max_depth: int = 3
    min_leaf: int = 40
    z: float = 1.0
    thresholds: int = 48
    segments: tuple[str, ...] = ("cue_creative", "cue_conjunction")
    """Features the tree splits on first, in order (at 0.5, while both sides hold ``min_leaf`` questions):
    requests to write something (a letter, a note, a role to play) and questions in several parts ("…, and
    how …") read the corpus differently from single questions, and rules learned on the many single
    questions must not decide for the others. Each segment then grows its own validated rules. Empty:
    none."""
    validate_folds: int = 5
    """Inner folds on which each segment's rules (the whole tree without a segment) must beat the default
    pipeline held out, or give way to it (0: no validation)."""
    min_learn: int = 160
    """Fewer questions than this in a segment (or in all, without segments) learn no rules: they go to the
    default pipeline. Inner folds of fewer questions cannot tell a rule from luck."""


def best_single(rewards: np.ndarray) -> int:
    """Column of the best mean reward (ties: the first column, the cheapest by the caller's order)."""
    return int(np.argmax(rewards.mean(axis=0)))


def default_arm(rewards: np.ndarray, cost_order: Sequence[int], z: float) -> int:
    """The default pipeline: the cheapest (first in ``cost_order``, e.g. by context tokens) whose recall is
    not below the best pipeline's by more than ``z`` standard errors of the paired difference; so of two
    pipelines that tie, the one handing over less context."""
    best = best_single(rewards)
    for column in cost_order:
        if column == best:
            return best
        diff = rewards[:, best] - rewards[:, column]
        error = float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
        if float(diff.mean()) <= z * error:
            return column
    return best


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
    def __init__(
        self, x: np.ndarray, rewards: np.ndarray, names: Sequence[str], settings: TreeSettings, default: int
    ) -> None:
        self.x, self.rewards, self.names, self.settings = x, rewards, list(names), settings
        self.default = default

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

    def route(self, node: Node, row: int, labels: Sequence[str]) -> int:
        """The column ``node`` sends fitting row ``row`` to."""
        while node.pipeline is None:
            assert node.le is not None and node.gt is not None
            node = node.le if self.x[row, self.names.index(node.feature)] <= node.threshold else node.gt
        return labels.index(node.pipeline)

    def segmented(self, rows: np.ndarray, depth: int, labels: Sequence[str]) -> Node:
        """Split on ``segments[depth]`` (at 0.5) while both sides keep ``min_leaf`` questions; below the
        segments, a validated free tree."""
        segments = self.settings.segments
        name = segments[depth] if depth < len(segments) else ""
        if name in self.names and depth < self.settings.max_depth:
            inside = self.x[rows, self.names.index(name)] > 0.5
            if min(int(inside.sum()), int((~inside).sum())) >= self.settings.min_leaf:
                le = self.segmented(rows[~inside], depth + 1, labels)
                gt = self.segmented(rows[inside], depth + 1, labels)
                return _joined(Node(feature=name, threshold=0.5, le=le, gt=gt, questions=len(rows)))
        return self.validated(rows, depth, labels)

    def validated(self, rows: np.ndarray, depth: int, labels: Sequence[str]) -> Node:
        """The free tree grown on ``rows`` (none below ``min_learn`` questions), kept only when, grown again
        on all but one of ``validate_folds`` parts and scored on the part left out, it recalls more than the
        default pipeline on those rows by more than ``z`` standard errors; otherwise a leaf with the default."""
        default = Node(pipeline=labels[self.default], questions=len(rows))
        if len(rows) < self.settings.min_learn:
            return default
        grown = self.grow(rows, depth, labels)
        folds = self.settings.validate_folds
        if grown.pipeline == default.pipeline or not folds or len(rows) < folds:
            return grown
        part = np.random.default_rng(0).permutation(len(rows)) % folds
        gains: list[float] = []
        for fold in range(folds):
            inner = self.grow(rows[part != fold], depth, labels)
            for row in rows[part == fold]:
                gains.append(self.rewards[row, self.route(inner, int(row), labels)] - self.rewards[row, self.default])
        held = np.array(gains)
        error = float(held.std(ddof=1)) / math.sqrt(len(held))
        return grown if float(held.mean()) > self.settings.z * error else default

    def grow(self, rows: np.ndarray, depth: int, labels: Sequence[str]) -> Node:
        """The greedy tree from ``depth`` down to ``max_depth``."""
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
        return _joined(Node(feature=self.names[column], threshold=round(cut, 6), le=le, gt=gt, questions=len(rows)))


def _joined(node: Node) -> Node:
    """A split whose two sides are leaves of the same pipeline, as one leaf."""
    same = node.le is not None and node.gt is not None and node.le.pipeline is not None
    if same and node.le is not None and node.gt is not None and node.le.pipeline == node.gt.pipeline:
        return Node(pipeline=node.le.pipeline, questions=node.questions)
    return node


def fit_policy(
    features: Sequence[dict[str, float]],
    rewards: np.ndarray,
    pipelines: Sequence[str],
    settings: TreeSettings | None = None,
    dataset: str = "",
    tokens: np.ndarray | None = None,
) -> RouterPolicy:
    """Fit the tree: ``features[i]`` of question i, ``rewards[i, j]`` the recall of ``pipelines[j]`` on it,
    ``tokens[i, j]`` the context it handed over (ties go to the pipeline handing over less; without
    ``tokens``, to the earlier pipeline)."""
    settings = settings or TreeSettings()
    if rewards.shape != (len(features), len(pipelines)) or not len(features):
        raise ValueError("rewards must hold one row per question and one column per pipeline")
    names = [name for name in FEATURES if any(name in row for row in features)]
    x = np.array([[row.get(name, 0.0) for name in names] for row in features], dtype=float)
    order = np.argsort(tokens.mean(axis=0), kind="stable") if tokens is not None else np.arange(len(pipelines))
    default = default_arm(rewards, [int(c) for c in order], settings.z)
    grower = _Grower(x, rewards, names, settings, default)
    root = grower.segmented(np.arange(len(features)), 0, list(pipelines))
    return RouterPolicy(
        root=root,
        default=pipelines[grower.default],
        pipelines=tuple(pipelines),
        fitted_on=len(features),
        dataset=dataset,
    )
