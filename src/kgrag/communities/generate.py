"""Writing the reports a hierarchy is missing, level by level, finest first.

Only communities without a report are touched: ids are derived from level and members, so a rebuild
that leaves a community unchanged leaves its report in place, and one whose membership changed is a new
id with no report. Three rules keep the number of calls down (feldt-hellstrom-2026 §3.4.5 found
summaries of two-node communities costly and of little use):

* a community below ``communities.min_community_size`` gets no report (its members still appear, by
  name, in its parent's material);
* a community with a single child inherits the child's report (no new information, no call);
* higher levels are written from their children's reports, not from the entities again.

Reports are saved in batches, each in its own transaction, so a killed run resumes where it stopped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Protocol

from kgrag.communities.material import GraphData, Job, level0_job
from kgrag.config import CommunitiesConfig
from kgrag.core.community_records import CommunityRecord, CommunityReport
from kgrag.core.progress import Progress, SilentProgress
from kgrag.store.base import Store

BATCH = 32


class ReportWriter(Protocol):
    """Turns jobs into reports (one per job, same order). ``redoes_fallbacks``: it can do better than the
    extractive fallback, so reports that fell back earlier are written again; ``failures``: replies that
    fell back so far (this run's incomplete work)."""

    method: str
    redoes_fallbacks: bool
    failures: int

    def write(self, jobs: Sequence[Job]) -> list[CommunityReport]: ...


@dataclass
class ReportStats:
    """What one report run did; ``naive_calls`` is one call per community of every level, the cost of
    writing every report with the LLM and no inheritance or size floor."""

    communities: int = 0
    kept: int = 0
    written: int = 0
    inherited: int = 0
    trivial: int = 0
    fallback: int = 0
    naive_calls: int = 0
    waiting: int = 0  # communities left for the next run: a member's summary fell back

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class _Run:
    """State of one report run: the hierarchy, loaded reports, the lazily loaded graph."""

    def __init__(self, store: Store, config: CommunitiesConfig) -> None:
        self.store = store
        self.config = config
        self.children: dict[str, list[CommunityRecord]] = defaultdict(list)
        self._data: GraphData | None = None

    def data(self) -> GraphData:
        if self._data is None:
            self._data = GraphData.load(self.store)
        return self._data

    def job(self, community: CommunityRecord, child_reports: dict[str, CommunityReport]) -> Job:
        if community.level == 0:
            return level0_job(community, self.data())
        kids = self.children[community.id]
        reports = sorted(
            (child_reports[k.id] for k in kids if k.id in child_reports), key=lambda r: (-r.rating, r.community_id)
        )
        unreported = [e for k in kids if k.id not in child_reports for e in k.entity_ids]
        entities = [self.data().entities[e] for e in unreported if e in self.data().entities] if unreported else []
        if not reports:  # only trivial children: write it from the graph like a level-0 community
            return level0_job(community, self.data())
        return Job(community, entities=entities, children=reports)


def generate_reports(
    store: Store,
    config: CommunitiesConfig,
    writer: ReportWriter,
    progress: Progress | None = None,
    label: str = "reports",
) -> ReportStats:
    """Write every missing report with ``writer``; returns what was done.

    A writer that can do better than the extractive fallback (``writer.redoes_fallbacks``, the LLM writer)
    also rewrites every report that fell back before, and every ancestor of one (a parent written from, or
    inheriting, a fallback child would otherwise keep it forever). A community holding an entity whose
    description summary fell back (flagged stale, retried by the next run) waits, with its ancestors:
    written now, its report would describe the stand-in summary for good. So a run after a faulty one ends
    with the reports a fault-free run writes, and ``stats.waiting`` says how many are left for it.
    """
    progress = progress or SilentProgress()
    communities = store.communities.communities()
    pending = set(store.communities.without_report())
    if writer.redoes_fallbacks:
        pending |= _fallbacks_and_ancestors(store, communities)
    waiting = _with_ancestors(communities, _holding(communities, set(store.graph.stale_entity_ids())))
    pending -= waiting
    stats = ReportStats(
        communities=len(communities),
        kept=len(communities) - len(pending) - len(waiting),
        naive_calls=len(communities),
        waiting=len(waiting),
    )
    run = _Run(store, config)
    by_level: dict[int, list[CommunityRecord]] = defaultdict(list)
    for c in communities:
        by_level[c.level].append(c)
        if c.parent_id is not None:
            run.children[c.parent_id].append(c)
    progress.start(label, len(pending))
    for level in sorted(by_level):
        todo = [c for c in by_level[level] if c.id in pending]
        if todo:
            _write_level(run, todo, writer, stats, progress, label)
    progress.finish(label)
    return stats


def _fallbacks_and_ancestors(store: Store, communities: list[CommunityRecord]) -> set[str]:
    fallbacks = {r.community_id for r in store.communities.reports() if r.method == "fallback"}
    return _with_ancestors(communities, fallbacks)


def _holding(communities: list[CommunityRecord], entity_ids: set[str]) -> set[str]:
    if not entity_ids:
        return set()
    return {c.id for c in communities if not entity_ids.isdisjoint(c.entity_ids)}


def _with_ancestors(communities: list[CommunityRecord], ids: set[str]) -> set[str]:
    parent = {c.id: c.parent_id for c in communities}
    found: set[str] = set()
    for start in ids:
        node: str | None = start
        while node is not None and node not in found:
            found.add(node)
            node = parent.get(node)
    return found


def _write_level(
    run: _Run, todo: list[CommunityRecord], writer: ReportWriter, stats: ReportStats, progress: Progress, label: str
) -> None:
    kid_ids = [k.id for c in todo for k in run.children.get(c.id, ())]
    child_reports = {r.community_id: r for r in run.store.communities.reports(kid_ids)} if kid_ids else {}
    inherited: list[CommunityReport] = []
    jobs: list[Job] = []
    for c in todo:
        kids = run.children.get(c.id, [])
        if c.size < run.config.min_community_size:
            stats.trivial += 1
        elif len(kids) == 1 and kids[0].id in child_reports:
            child = child_reports[kids[0].id]
            inherited.append(replace(child, community_id=c.id, level=c.level, method="inherited"))
        else:
            jobs.append(run.job(c, child_reports))
    if inherited:
        run.store.communities.save_reports(inherited)
        stats.inherited += len(inherited)
    progress.advance(label, len(todo) - len(jobs))
    for start in range(0, len(jobs), BATCH):
        reports = writer.write(jobs[start : start + BATCH])
        run.store.communities.save_reports(reports)
        stats.written += len(reports)
        stats.fallback += sum(r.method == "fallback" for r in reports)
        progress.advance(label, len(reports))
    checkpoint = getattr(writer, "checkpoint", None)  # the next level is written from this one's reports
    if callable(checkpoint):
        checkpoint()
