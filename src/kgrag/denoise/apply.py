"""Applying a denoising plan to the store, and undoing it.

Order of one run: plan resolution (reads; may embed and ask the LLM) → one transaction: snapshot the
graph tables, record the run, merge/link, log, recompute what changed → plan reflection on the merged
graph (reads; may ask the LLM) → one transaction: drop, log scores, record the fingerprint. LLM calls never
run inside a write transaction (their cache writes come from worker threads). A crash between the two
transactions leaves a run in state ``applying`` with its snapshot, which undo restores like any other;
the next run resumes that run (:func:`begin_run`: same id, its snapshot kept) rather than snapshotting
the half-applied graph, so one undo after any kill restores the graph as it was before both.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.core.denoise_records import DenoiseRun, MergeEntry, RelationScore
from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityRecord, RelationMention
from kgrag.denoise.reflect import ReflectionPlan
from kgrag.denoise.types import ResolutionGraph, ResolutionPlan
from kgrag.documents import TokenCounter
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import Summarizer
from kgrag.store.base import Store

SYNONYM_LABEL = "same_as"
APPLIED, APPLYING, UNDONE = "applied", "applying", "undone"


def merge_entries(plan: ResolutionPlan, graph: ResolutionGraph, run_id: str) -> list[MergeEntry]:
    """One log line per alias of every planned group."""
    return [
        MergeEntry(
            run_id=run_id,
            canonical_id=graph.ids[g.canonical],
            canonical_name=graph.names[g.canonical],
            alias_id=graph.ids[a],
            alias_key=graph.keys[a],
            alias_name=graph.names[a],
            score=round(g.score, 4),
            mode=g.mode,
            reason=g.reason,
        )
        for g in plan.groups
        for a in g.aliases
    ]


def _synonym_mentions(
    plan: ResolutionPlan, graph: ResolutionGraph, records: dict[str, EntityRecord]
) -> list[RelationMention]:
    """A ``same_as`` relation per linked alias, attributed to the alias's first chunk (its provenance)."""
    out = []
    for g in plan.groups:
        if g.mode != "link":
            continue
        for a in g.aliases:
            chunks = records[graph.ids[a]].chunk_ids
            if chunks:
                out.append(
                    RelationMention(
                        source_key=graph.keys[a],
                        target_key=graph.keys[g.canonical],
                        chunk_id=chunks[0],
                        label=SYNONYM_LABEL,
                        description=f"{graph.names[a]} is another name for {graph.names[g.canonical]} ({g.reason}).",
                        keywords=("synonym",),
                    )
                )
    return out


def begin_run(store: Store, run_id: str, created: str) -> tuple[DenoiseRun, bool]:
    """The run to apply under: the last run when a kill left it ``applying`` (resumed: True, its snapshot
    already holds the graph from before it), else a new run (False: it still needs its snapshot)."""
    runs = store.denoise.runs()
    if runs and runs[-1].status == APPLYING:
        return runs[-1], True
    return DenoiseRun(run_id, created, APPLYING, ""), False


def start_run(store: Store, run: DenoiseRun, resumed: bool) -> None:
    """Snapshot the graph under a new run and record the run (inside the caller's transaction)."""
    if not resumed:
        store.denoise.snapshot(run.id)
        store.denoise.save_run(run)


def apply_resolution(
    store: Store,
    plan: ResolutionPlan,
    graph: ResolutionGraph,
    run: DenoiseRun,
    summarizer: Summarizer,
    counter: TokenCounter | None = None,
    *,
    resumed: bool = False,
) -> dict[str, int]:
    """Snapshot (unless ``resumed``), record the run, merge and link the planned groups, log them, recompute
    aggregates; all in one transaction. Returns what changed."""
    records = {e.id: e for e in store.graph.entities([graph.ids[a] for g in plan.groups for a in g.aliases])}
    mapping = {graph.ids[a]: graph.ids[g.canonical] for g in plan.groups if g.mode == "merge" for a in g.aliases}
    with store.transaction():
        start_run(store, run, resumed)
        counts = store.denoise.merge_entities(mapping, run.id) if mapping else None
        synonyms = _synonym_mentions(plan, graph, records)
        if synonyms:
            store.graph.add_relation_mentions(synonyms)
        store.denoise.log_merges(merge_entries(plan, graph, run.id))
        rebuilt = recompute_stale(store, summarizer, counter)
    return {
        "entities_merged_away": len(mapping),
        "synonym_links": len(synonyms),
        "mentions_moved": counts.entity_mentions if counts else 0,
        "relations_repointed": counts.relations_moved if counts else 0,
        "self_loops_dropped": counts.self_loops if counts else 0,
        "entities_rebuilt": rebuilt[0],
        "relations_rebuilt": rebuilt[1],
    }


def score_records(plan: ReflectionPlan, names: dict[str, str], store: Store, run_id: str) -> list[RelationScore]:
    relations = {r.id: r for r in store.graph.relations([v.relation_id for v in plan.verdicts])}
    dropped = set(plan.drop)
    return [
        RelationScore(
            run_id=run_id,
            relation_id=v.relation_id,
            source_name=names.get(relations[v.relation_id].source_id, ""),
            target_name=names.get(relations[v.relation_id].target_id, ""),
            label=relations[v.relation_id].label,
            score=-1.0 if v.score is None else v.score,
            reason=v.reason,
            method=plan.method,
            dropped=v.relation_id in dropped,
        )
        for v in plan.verdicts
        if v.relation_id in relations
    ]


def apply_reflection(store: Store, plan: ReflectionPlan, names: dict[str, str], run_id: str) -> int:
    """Log every verdict (score -1: not judged) and drop the planned relations, in one transaction."""
    with store.transaction():
        store.denoise.log_scores(score_records(plan, names, store, run_id))
        return store.denoise.drop_relations(plan.drop, run_id) if plan.drop else 0


def finish_run(store: Store, run: DenoiseRun, summary: dict[str, object]) -> DenoiseRun:
    done = DenoiseRun(run.id, run.created, APPLIED, store.denoise.fingerprint(), summary)
    store.denoise.save_run(done)
    return done


def undoable(runs: Sequence[DenoiseRun]) -> DenoiseRun | None:
    """The most recent run still in force."""
    live = [r for r in runs if r.status in (APPLIED, APPLYING)]
    return live[-1] if live else None


def undo_last(store: Store, *, force: bool = False) -> DenoiseRun:
    """Restore the graph tables exactly as they were before the last run still in force.

    If anything changed the graph after that run (a re-index, an import), restoring would silently lose
    that change, so it refuses unless ``force``.
    """
    run = undoable(store.denoise.runs())
    if run is None:
        raise KgragError("nothing to undo: no denoising run is in force")
    if run.status == APPLIED and not force and store.denoise.fingerprint() != run.fingerprint:
        raise KgragError(
            f"the graph changed after denoising run {run.id} (re-indexed or imported since); undoing would "
            "lose those changes too. Re-run with --force to restore the graph as it was before the run."
        )
    with store.transaction():
        store.denoise.restore(run.id)
        store.denoise.delete_logs(run.id)
        undone = DenoiseRun(run.id, run.created, UNDONE, run.fingerprint, run.summary)
        store.denoise.save_run(undone)
    return undone
