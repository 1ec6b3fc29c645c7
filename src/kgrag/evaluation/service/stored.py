"""Stored evaluation runs of a workspace: list them, read one with its statistics, write reports."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord, EvalTrace
from kgrag.evaluation.pairwise.report import write_pairwise_report
from kgrag.evaluation.reports import write_run_report
from kgrag.evaluation.session import EvalRun, compare_baseline, finish
from kgrag.store import Store


class StoredRuns:
    """The evaluation runs kept in ``store``: read back, compared and reported."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def runs(self, kind: str | None = None) -> list[EvalRunRecord]:
        """Stored evaluation runs, newest first (``kind``: ``run`` or ``pairwise``)."""
        return self._store.eval_runs.runs(kind)

    def traces(self, run_id: str, question_id: str | None = None) -> list[EvalTrace]:
        """The provenance of a stored run (``latest`` allowed): answers, context items, judge calls."""
        return self._store.eval_runs.traces(self.get_run(run_id).record.id, question_id)

    def get_run(self, run_id: str, baseline: str | None = None) -> EvalRun:
        """A stored run with its scores, summary and statistics (paired against ``baseline``, default the
        one it ran with); ``latest`` is the newest metric run."""
        store = self._store.eval_runs
        if run_id == "latest":
            newest = store.runs("run")
            if not newest:
                raise KgragError("no evaluation runs stored yet; run `kgrag eval run` first")
            run_id = newest[0].id
        record = store.get(run_id)
        if record is None:
            known = ", ".join(r.id for r in store.runs()[:5]) or "none yet"
            raise KgragError(f"no evaluation run {run_id!r} in this workspace (recent: {known})")
        return finish(record, store.scores(run_id), baseline)

    def report(self, run_ids: Sequence[str], out_dir: Path, baseline: str | None = None) -> dict[str, Path]:
        """Markdown + JSON + PNG plots for one or more stored runs (several runs are compared in one table,
        each pipeline labelled ``NAME @RUN``, paired on the questions they share); ``baseline`` overrides
        the pipeline differences are taken against."""
        if not run_ids:
            raise KgragError("name at least one run (see `kgrag eval list`)")
        kinds = {(r.kind if (r := self._store.eval_runs.get(i)) else "run") for i in run_ids}
        if kinds == {"pairwise"}:
            return self.pairwise_report(run_ids, out_dir)
        if len(kinds) > 1:
            raise KgragError("report metric runs and pairwise runs separately")
        runs = [self.get_run(r, baseline if len(run_ids) == 1 else None) for r in run_ids]
        if len(runs) == 1:
            return write_run_report(runs[0], out_dir)
        return write_run_report(_compared(runs, baseline), out_dir)

    def pairwise_report(self, run_ids: Sequence[str], out_dir: Path) -> dict[str, Path]:
        """Markdown + JSON + box plots + relative-win-rate heat map for stored pairwise runs."""
        payloads = []
        for run_id in run_ids:
            record = self._store.eval_runs.get(run_id)
            if record is None or record.kind != "pairwise":
                raise KgragError(f"no pairwise run {run_id!r} in this workspace (see `kgrag eval list`)")
            payloads.append(record.payload)
        return write_pairwise_report(payloads, out_dir)


def _compared(runs: list[EvalRun], baseline: str | None) -> EvalRun:
    """Several runs as one, each pipeline labelled ``NAME @RUN``."""
    scores = [
        replace(s, pipeline=f"{s.pipeline} @{run.record.id}", run_id="compare") for run in runs for s in run.scores
    ]
    names = [f"{p} @{run.record.id}" for run in runs for p in run.record.payload.get("plan", {}).get("pipelines", [])]
    payload = {
        "id": "compare-" + "-".join(r.record.id for r in runs),
        "compared": [r.record.payload for r in runs],
        "plan": {"pipelines": names, "baseline": compare_baseline(baseline, names)},
        "bootstrap": runs[0].record.payload.get("bootstrap"),
    }
    record = EvalRunRecord(str(payload["id"]), "run", time.time(), "", "", payload)
    return finish(record, scores)
