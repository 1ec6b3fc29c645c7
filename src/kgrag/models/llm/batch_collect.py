"""Collect mode: a cache miss is written down for the next batch instead of being sent.

A batched indexing run goes in rounds (see docs/llm.md, "Batch API"). In each round the pipeline runs
inside a store dry run with a client whose :class:`~kgrag.models.llm.calls.CallRunner` carries a
:class:`BatchCollector`: a request whose reply is cached proceeds as usual; a miss is recorded (request,
cache key, ledger stage and the caller's parser) and answered "deferred", so its unit is neither failed
for good nor retried, and nothing is written that outlives the dry run. The collected requests become one
batch; once its replies are cached the next round gets further (gleaning after extraction, summaries
after the graph, reports after communities).

A request built from a deferred reply would be wrong (a summary of descriptions that are still missing),
so a round stops at a *barrier*: once something has been deferred, the first miss of another prompt
family raises :class:`RoundBarrier`, which no stage catches. Extraction and gleaning are one family:
a unit's gleaning depends only on its own first pass, so both may share a round. Within one family a
caller marks such a dependency itself with :meth:`LLMClient.checkpoint` (community reports: a level's
reports are written from the reports of the level below).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.llm_types import ChatRequest

DEFERRED = "deferred to a batch: no call was made yet"
# prompts whose requests may share a round: gleaning a unit needs only that unit's first pass
_FAMILY = {"glean_graph": "extract_graph"}


class RoundBarrier(BaseException):
    """Ends a collect round: the next request would be built from replies that are still missing.

    A ``BaseException`` so that no stage's ``except Exception`` turns it into a fallback."""


@dataclass(frozen=True)
class Deferred:
    """One collected request: what to send, under which cache key, for which ledger stage, checked how."""

    key: str
    request: ChatRequest
    stage: str
    parse: Callable[[str, str | None], tuple[Any, bool]] | None = None


def family(request: ChatRequest) -> str:
    """The prompt family a request belongs to (its prompt's name; gleaning counts as extraction)."""
    name = request.prompt.name if request.prompt is not None else "(chat)"
    return _FAMILY.get(name, name)


@dataclass
class BatchCollector:
    """Records the misses of one round. ``attempted``: cache keys some earlier batch (or the live fallback
    after it) already tried; they are not collected again and leave the live run to handle them."""

    attempted: Collection[str] = frozenset()
    collected: dict[str, Deferred] = field(default_factory=dict)
    families: set[str] = field(default_factory=set)
    skipped: int = 0
    stopped_at_barrier: bool = False  # the round ended at a barrier, not at the end of the pipeline
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def defer(self, deferred: Deferred) -> None:
        """Note a miss, or raise :class:`RoundBarrier` when it belongs past this round's barrier."""
        with self._lock:
            if deferred.key in self.attempted:
                self.skipped += 1  # already batched once: the live run sends it (no barrier: it may never work)
                return
            kind = family(deferred.request)
            if self.families and kind not in self.families:
                raise RoundBarrier(kind)
            self.families.add(kind)
            self.collected.setdefault(deferred.key, deferred)

    def checkpoint(self) -> None:
        """What comes next is built from the replies asked for so far: end the round if any was deferred."""
        with self._lock:
            if self.collected:
                raise RoundBarrier("checkpoint")

    def requests(self) -> list[Deferred]:
        """What this round collected, in the order first met."""
        with self._lock:
            return list(self.collected.values())
