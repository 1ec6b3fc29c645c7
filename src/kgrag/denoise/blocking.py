"""Blocking strategies (deg-rag §4.1): which entities are compared at all.

Comparing every pair is quadratic (10⁵ entities → 5·10⁹ pairs), so candidates are only sought inside
blocks. Every blocker caps block size at ``max_block`` by splitting big blocks with k-means again, which
bounds the pairwise work at ``|E| · max_block`` and keeps resolution near-linear in the entity count.

k-means here is spherical k-means written over NumPy matrix products: the vectors are L2-normalised, so
the nearest centre is the largest dot product, and one assignment pass over 10⁵×384 vectors is a single
BLAS call. scipy's ``kmeans2`` computes distances point by point and is much slower at this size
(docs/results/design-measurements.md).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from kgrag.config.denoise import DenoiseConfig
from kgrag.denoise.settings import KmeansBlockerSettings
from kgrag.denoise.types import Blocker, ResolutionGraph

KMEANS_ITERATIONS = 12
_ASSIGN_ROWS = 20_000  # rows per assignment product: bounds the n×k score matrix in memory


def default_k(n: int) -> int:
    """deg-rag's rule of thumb for the number of semantic blocks: k = √(|E|/10)."""
    return max(1, round(math.sqrt(n / 10)))


def _assign(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    labels = np.empty(len(x), dtype=np.int64)
    for start in range(0, len(x), _ASSIGN_ROWS):
        labels[start : start + _ASSIGN_ROWS] = np.argmax(x[start : start + _ASSIGN_ROWS] @ centres.T, axis=1)
    return labels


def spherical_kmeans(x: np.ndarray, k: int, *, seed: int = 0, iterations: int = KMEANS_ITERATIONS) -> np.ndarray:
    """Cluster label per row of L2-normalised ``x`` (deterministic for a seed); empty clusters re-seed."""
    n = len(x)
    k = max(1, min(k, n))
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    centres = x[rng.choice(n, size=k, replace=False)].astype(np.float32, copy=True)
    labels = _assign(x, centres)
    for _ in range(iterations):
        membership = sp.csr_matrix((np.ones(n, dtype=np.float32), (labels, np.arange(n))), shape=(k, n))
        sums = np.asarray(membership @ x, dtype=np.float32)
        norms = np.linalg.norm(sums, axis=1)
        empty = norms == 0
        sums[empty] = x[rng.choice(n, size=int(empty.sum()), replace=False)]
        norms[empty] = 1.0
        centres = sums / norms[:, None]
        new = _assign(x, centres)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def _by_label(indices: np.ndarray, labels: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return [indices[part] for part in np.split(order, cuts)]


def split_large(graph: ResolutionGraph, blocks: list[np.ndarray], max_block: int, depth: int = 0) -> list[np.ndarray]:
    """Blocks over ``max_block`` split by k-means (twice the needed count, so halves stay under the cap);
    a block k-means cannot split (identical vectors) is cut in slices."""
    out: list[np.ndarray] = []
    for block in blocks:
        if len(block) <= max_block:
            out.append(block)
            continue
        parts = _by_label(block, spherical_kmeans(graph.vectors[block], 2 * math.ceil(len(block) / max_block)))
        if len(parts) == 1 or depth >= 4:
            out.extend(block[s : s + max_block] for s in range(0, len(block), max_block))
        else:
            out.extend(split_large(graph, parts, max_block, depth + 1))
    return out


def kmeans_blocks(graph: ResolutionGraph, config: DenoiseConfig) -> list[np.ndarray]:
    """Semantic blocking: k-means on ego vectors, k = √(|E|/10) unless configured."""
    indices = np.arange(graph.size)
    k = config.entry_settings("blockers", "kmeans", KmeansBlockerSettings).k or default_k(graph.size)
    blocks = _by_label(indices, spherical_kmeans(graph.vectors, k)) if graph.size else []
    return split_large(graph, blocks, config.max_block)


def type_blocks(graph: ResolutionGraph, config: DenoiseConfig) -> list[np.ndarray]:
    """One block per entity type (deg-rag's strongest blocking); large ones split by k-means."""
    by_type: dict[str, list[int]] = {}
    for index, kind in enumerate(graph.types):
        by_type.setdefault(kind, []).append(index)
    return split_large(graph, [np.asarray(v, dtype=np.int64) for v in by_type.values()], config.max_block)


def structural_blocks(graph: ResolutionGraph, config: DenoiseConfig) -> list[np.ndarray]:
    """The neighbour set of every entity with at least two neighbours (entities that share a neighbour
    are compared); identical sets once, hubs' big sets split by k-means."""
    seen: set[bytes] = set()
    blocks: list[np.ndarray] = []
    for nbrs in graph.neighbours:
        if len(nbrs) < 2:
            continue
        block = np.sort(nbrs)
        key = block.tobytes()
        if key not in seen:
            seen.add(key)
            blocks.append(block)
    return split_large(graph, blocks, config.max_block)


def no_blocks(graph: ResolutionGraph, config: DenoiseConfig) -> list[np.ndarray]:
    """Everything in one block: exact for small graphs, still capped at ``max_block`` by k-means."""
    return split_large(graph, [np.arange(graph.size)], config.max_block) if graph.size else []


def kmeans_blocker(config: DenoiseConfig) -> Blocker:
    """``KINDS["resolution_blocker"]["kmeans"]``."""
    return kmeans_blocks


def type_blocker(config: DenoiseConfig) -> Blocker:
    """``KINDS["resolution_blocker"]["type"]``."""
    return type_blocks


def structural_blocker(config: DenoiseConfig) -> Blocker:
    """``KINDS["resolution_blocker"]["structural"]``."""
    return structural_blocks


def none_blocker(config: DenoiseConfig) -> Blocker:
    """``KINDS["resolution_blocker"]["none"]``."""
    return no_blocks
