"""Keeping the graph consistent after its sources change (documents removed, re-chunked, re-extracted).

The store does the bookkeeping: deleting a chunk cascades to its mentions, and triggers flag the
entities and relations those mentions belonged to as stale. :func:`refresh_graph` then finishes the job
in two idempotent steps — delete what has no provenance left, rebuild what is stale from the mentions
that remain (re-summarising from the remaining descriptions, so removed text disappears from them too).
Both steps are safe to repeat after a crash: the stale flags survive until the rebuild commits.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.documents import TokenCounter
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import Summarizer
from kgrag.store.base import Store


@dataclass(frozen=True)
class RefreshStats:
    """What one refresh changed."""

    entities_deleted: int = 0
    relations_deleted: int = 0
    entities_rebuilt: int = 0
    relations_rebuilt: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.entities_deleted or self.relations_deleted or self.entities_rebuilt or self.relations_rebuilt)


def refresh_graph(store: Store, summarizer: Summarizer, counter: TokenCounter | None = None) -> RefreshStats:
    """Delete orphans (entities/relations without mentions, relations whose endpoint went) and rebuild
    stale aggregates."""
    entities_deleted, relations_deleted = store.graph.delete_orphans()
    entities_rebuilt, relations_rebuilt = recompute_stale(store, summarizer, counter)
    return RefreshStats(entities_deleted, relations_deleted, entities_rebuilt, relations_rebuilt)
