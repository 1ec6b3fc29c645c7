"""The in-memory index queries search: every report that has a vector for the workspace's model.

Loaded once per store generation by the query context (a :class:`~kgrag.core.hot.HotValue`). Inherited
reports repeat their child's text; search keeps the first (finest) of identical texts so the top k are
k different reports.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from kgrag.communities.vectors import report_hash
from kgrag.core.community_records import CommunityReport
from kgrag.core.dense_index import DenseIndex
from kgrag.store.base import Store


@dataclass
class CommunityIndex:
    """Reports (finest level first) and their unit vectors."""

    reports: dict[str, CommunityReport]
    dense: DenseIndex
    hashes: dict[str, str]

    def __len__(self) -> int:
        return len(self.dense)

    def search(self, vector: np.ndarray, k: int, levels: Collection[int] = ()) -> list[tuple[CommunityReport, float]]:
        """The ``k`` most similar reports (of ``levels``, or all), one per distinct text, best first."""
        out: list[tuple[CommunityReport, float]] = []
        seen: set[str] = set()
        for hit in self.dense.search(vector, len(self.dense)):
            report = self.reports[hit.id]
            if (levels and report.level not in levels) or self.hashes[hit.id] in seen:
                continue
            seen.add(self.hashes[hit.id])
            out.append((report, hit.score))
            if len(out) == k:
                break
        return out


def load_community_index(store: Store, model: str) -> CommunityIndex:
    """Every stored report with a vector for ``model``."""
    reports = store.communities.reports()
    hashes = {r.community_id: report_hash(r) for r in reports}
    vectors = store.vectors.get(model, list(hashes.values()))
    kept = [r for r in reports if hashes[r.community_id] in vectors]
    if not kept:
        return CommunityIndex({}, DenseIndex([], np.zeros((0, 0), dtype=np.float32)), {})
    matrix = np.vstack([vectors[hashes[r.community_id]] for r in kept])
    return CommunityIndex({r.community_id: r for r in kept}, DenseIndex([r.community_id for r in kept], matrix), hashes)
