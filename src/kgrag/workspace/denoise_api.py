"""``ws.denoise``: plan (dry run), apply, undo and report graph denoising (entity resolution and triple
reflection, :mod:`kgrag.denoise`).

The same code runs as the ``resolve``/``reflect`` indexing stages; here it runs on demand, booked in the
LLM ledger under the same stage names (``index.resolve``, ``index.reflect``). A plan changes nothing in
the graph (it may store entity vectors it had to compute, which are a cache keyed by text).
"""

from __future__ import annotations

import json
from pathlib import Path

from kgrag.core.denoise_records import DenoiseRun, MergeEntry, RelationScore
from kgrag.core.errors import KgragError, WorkspaceError
from kgrag.core.progress import Progress
from kgrag.denoise.apply import score_records, undo_last
from kgrag.denoise.report import DenoiseReport, MergeSample, drop_samples, merge_samples, spread
from kgrag.denoise.runner import DenoiseInputs, apply_denoise, plan_denoise
from kgrag.graph.analysis.stats import graph_stats
from kgrag.workspace.components import Components
from kgrag.workspace.index_lock import indexing_lock

PLAN_FILE_NAME = "denoise-plan.json"
LOG_DIR_NAME = "denoise"


class DenoiseAPI:
    """Graph denoising over this workspace's store."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def _inputs(self, *, dry_run: bool = False) -> DenoiseInputs:
        parts = self._parts
        plan, _ = parts.chunk_plan()
        return DenoiseInputs(
            store=parts.store,
            config=parts.config.denoise,
            embedder=parts.embedder(),
            summarizer=parts.summarizer(),
            llm=parts.llm_if_configured(),
            counter=plan.counter,
            dry_run=dry_run,
            registries=parts.registries,
        )

    def plan(
        self, *, resolve: bool = True, reflect: bool = True, out: Path | None = None
    ) -> tuple[DenoiseReport, Path]:
        """What :meth:`apply` would merge and drop, written as JSON to ``out`` (default
        ``<workspace>/denoise-plan.json``); nothing is written to the database (without an LLM: with one,
        the calls it makes are cached and booked in the ledger)."""
        inputs = self._inputs(dry_run=True)
        plan = plan_denoise(inputs, resolve=resolve, reflect=reflect)
        scores: list[RelationScore] = (
            score_records(plan.reflection, plan.names, inputs.store, "") if plan.reflection else []
        )
        counts = {}
        if plan.resolution:
            counts["resolve"] = plan.resolution.counts
        if plan.reflection:
            counts["reflect"] = plan.reflection.counts
        sample = inputs.config.sample
        report = DenoiseReport(
            False, "", counts, merge_samples(plan.resolution, plan.graph, sample), drop_samples(scores, sample)
        )
        report.before = graph_stats(inputs.store)
        path = out or self._parts.path / PLAN_FILE_NAME
        everything = DenoiseReport(
            False, "", counts, merge_samples(plan.resolution, plan.graph, 10**9), drop_samples(scores, 10**9)
        )
        _write_json(path, everything.to_dict())
        return report, path

    def apply(
        self, *, resolve: bool = True, reflect: bool = True, progress: Progress | None = None
    ) -> tuple[DenoiseReport, Path]:
        """Resolve and reflect as one undoable run; returns the report and the merge log written under
        ``<workspace>/denoise/<run id>.json`` (the store keeps the same log). Holds the workspace's
        writer lock, so it waits for a running ``kgrag index`` (saying so to ``progress``) instead of
        merging entities that indexing is still linking to chunks."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            return self._apply(resolve, reflect)

    def _apply(self, resolve: bool, reflect: bool) -> tuple[DenoiseReport, Path]:
        inputs = self._inputs()
        before = graph_stats(inputs.store)
        outcome = apply_denoise(inputs, resolve=resolve, reflect=reflect)
        report = self.report(outcome.run.id)
        report.before = before
        path = self._parts.path / LOG_DIR_NAME / f"{outcome.run.id}.json"
        _write_json(
            path, {**report.to_dict(), "merge_log": [vars(m) for m in inputs.store.denoise.merges(outcome.run.id)]}
        )
        return report, path

    def undo(self, *, force: bool = False, progress: Progress | None = None) -> DenoiseRun:
        """Restore the graph exactly as it was before the last run still in force (under the writer lock)."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            return undo_last(self._parts.store, force=force)

    def runs(self) -> list[DenoiseRun]:
        """Every run, oldest first, with its status (applied, applying, undone)."""
        return self._parts.store.denoise.runs()

    def report(self, run_id: str | None = None) -> DenoiseReport:
        """Counts, sample merges and drops of a run (default: the last one), and the graph as it is now."""
        store = self._parts.store
        runs = store.denoise.runs()
        run = next((r for r in runs if r.id == run_id), None) if run_id else (runs[-1] if runs else None)
        if run is None:
            raise KgragError(f"no denoising run {run_id!r}" if run_id else "no denoising run yet")
        sample = self._parts.config.denoise.sample
        samples = _log_samples(store.denoise.merges(run.id), sample)
        raw = run.summary.get("counts", {})
        counts = (
            {str(k): {str(a): int(b) for a, b in v.items()} for k, v in raw.items()} if isinstance(raw, dict) else {}
        )
        return DenoiseReport(
            True, run.id, counts, samples, drop_samples(store.denoise.scores(run.id), sample), after=graph_stats(store)
        )


def _log_samples(entries: list[MergeEntry], n: int) -> list[MergeSample]:
    """Merge-log lines regrouped per canonical entity, a spread over the scores."""
    groups: dict[str, list[MergeEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.canonical_id, []).append(entry)
    ordered = sorted(groups.values(), key=lambda g: (-min(e.score for e in g), g[0].canonical_id))
    return [
        MergeSample(g[0].canonical_name, [e.alias_name for e in g], min(e.score for e in g), g[0].mode, g[0].reason)
        for g in spread(ordered, n)
    ]


def _write_json(path: Path, data: object) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot write ({exc.strerror})") from exc
