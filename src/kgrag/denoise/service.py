"""What ``ws.denoise`` runs: plan (dry run), apply, undo and report graph denoising (entity resolution
and triple reflection), and the hand edits of ``ws.graph.edit``.

The same code runs as the ``resolve``/``reflect`` indexing stages; here it runs on demand, booked in the
LLM ledger under the same stage names (``index.resolve``, ``index.reflect``). A plan changes nothing in
the graph (it may store entity vectors it had to compute, which are a cache keyed by text). Every write
holds the workspace's writer lock, so it waits for a running ``kgrag index`` instead of merging entities
that indexing is still linking to chunks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kgrag.core.denoise_records import DenoiseRun, MergeEntry, RelationScore
from kgrag.core.errors import KgragError, WorkspaceError
from kgrag.core.progress import Progress
from kgrag.denoise.apply import score_records, undo_last
from kgrag.denoise.report import DenoiseReport, MergeSample, drop_samples, merge_samples, spread
from kgrag.denoise.runner import DenoiseInputs, apply_denoise, plan_denoise
from kgrag.graph.analysis.stats import graph_stats
from kgrag.store.index_lock import indexing_lock

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.core.registries import Registries
    from kgrag.documents import TokenCounter
    from kgrag.graph.build.summarize import Summarizer
    from kgrag.models.embeddings import Embedder
    from kgrag.models.llm import LLMClient
    from kgrag.store.base import Store

PLAN_FILE_NAME = "denoise-plan.json"
LOG_DIR_NAME = "denoise"
EDITS = ("rename", "describe", "merge", "split", "delete-relation")


class CountingPlan(Protocol):
    """A chunking plan, for the token counter summaries are sized with."""

    @property
    def counter(self) -> TokenCounter: ...


class DenoiseParts(Protocol):
    """The workspace's parts denoising reads (the config on every use: fitting the LLM client replaces it)."""

    @property
    def path(self) -> Path: ...

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...

    @property
    def registries(self) -> Registries: ...

    def embedder(self) -> Embedder: ...

    def summarizer(self) -> Summarizer: ...

    def llm_if_configured(self) -> LLMClient | None: ...

    def chunk_plan(self) -> tuple[CountingPlan, list[str]]: ...


class DenoiseService:
    """Graph denoising and hand edits over a workspace's parts (its blockers, matchers, groupers, mergers
    and reflectors come from ``parts.registries``)."""

    def __init__(self, parts: DenoiseParts) -> None:
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

        before = graph_stats(inputs.store)  # what apply prints as "before", in the printed and written plan

        def report(n: int) -> DenoiseReport:
            merges = merge_samples(plan.resolution, plan.graph, n)
            return DenoiseReport(False, "", counts, merges, drop_samples(scores, n), before=before)

        shown = report(inputs.config.sample)
        path = out or self._parts.path / PLAN_FILE_NAME
        _write_json(path, report(10**9).to_dict())
        return shown, path

    def apply(
        self, *, resolve: bool = True, reflect: bool = True, progress: Progress | None = None
    ) -> tuple[DenoiseReport, Path]:
        """Resolve and reflect as one undoable run; returns the report and the merge log written under
        ``<workspace>/denoise/<run id>.json`` (the store keeps the same log). Holds the writer lock,
        waiting (saying so to ``progress``) while another writer runs."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            inputs = self._inputs()
            before = graph_stats(inputs.store)
            outcome = apply_denoise(inputs, resolve=resolve, reflect=reflect)
            report = self.report(outcome.run.id)
            report.before = before
            path = self._parts.path / LOG_DIR_NAME / f"{outcome.run.id}.json"
            merges = [vars(m) for m in inputs.store.denoise.merges(outcome.run.id)]
            _write_json(path, {**report.to_dict(), "merge_log": merges})
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

    def edit(self, op: str, target: str, value: str = "", progress: Progress | None = None) -> dict[str, Any]:
        """One hand edit of the graph, under the writer lock (it waits for a running ``kgrag index``):
        ``rename`` or ``describe`` an entity (``value``: the new text), ``merge`` entity ``value`` into
        entity ``target``, ``split`` the merged name ``value`` back out of entity ``target``, or
        ``delete-relation`` ``target``. Each is an undoable denoising run and a line of
        :meth:`edits`; see :mod:`kgrag.denoise.edits`. Returns that line."""
        from kgrag.denoise import edits

        if op not in EDITS:
            raise KgragError(f"unknown graph edit {op!r}: rename, describe, merge, split or delete-relation")
        parts = self._parts
        with indexing_lock(parts.path, parts.store, progress):
            if op == "merge":
                done = edits.merge(parts.store, target, value, parts.summarizer(), parts.chunk_plan()[0].counter)
            elif op == "split":
                done = edits.split(parts.store, target, value, parts.summarizer(), parts.chunk_plan()[0].counter)
            elif op == "delete-relation":
                done = edits.delete_relation(parts.store, target)
            else:
                done = edits.set_field(parts.store, target, "name" if op == "rename" else "description", value)
        return {**done.entry, "status": "applied"}

    def edits(self) -> list[dict[str, Any]]:
        """Every hand edit, oldest first, with its run's status (``applied``, or ``undone``)."""
        from kgrag.denoise.edits import history

        return history(self._parts.store)


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
