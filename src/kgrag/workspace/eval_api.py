"""``ws.eval``: evaluation runs over this workspace's pipelines (the CLI and a server call these)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.evaluation import evaluate_retrieval
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.tune import WIDE, TuneReport, tune_lambda
from kgrag.retrieval.paths import DEFAULT_LAMBDA, FuseLambda, lambda_key
from kgrag.workspace.components import Components
from kgrag.workspace.query_api import QueryAPI

REPORTS_DIR = "reports"
REPORT_SUFFIX = "_eval.json"


@dataclass(frozen=True)
class EvalRunInfo:
    """One stored evaluation report: its id (path under ``reports/`` without the suffix), kind, dataset,
    k, pipelines and when it was written."""

    id: str
    kind: str
    dataset: str
    k: int | None
    pipelines: list[str]
    written_at: float


class EvalAPI:
    """Evaluations that only need retrieval (LLM-judged ones join here as they land)."""

    def __init__(self, parts: Components, querying: QueryAPI) -> None:
        self._parts = parts
        self._querying = querying

    def retrieval(
        self,
        items: Sequence[QAItem],
        pipelines: Sequence[str],
        k: int,
        on_question: Callable[[], None] | None = None,
    ) -> RetrievalEvalReport:
        """Evidence recall@k per question type for each pipeline, over all context and over passages
        only, with the context tokens each pipeline hands over (so more context cannot pass for better
        retrieval). Unknown pipelines and an empty workspace fail before any question runs."""
        if not pipelines:
            raise KgragError("name at least one pipeline to evaluate (see `kgrag pipelines`)")
        for name in pipelines:
            self._querying.pipeline(name)
        self._querying.require_chunks()
        threshold = self._parts.config.evaluation.evidence_overlap
        return evaluate_retrieval(items, list(pipelines), k, threshold, self._querying.retrieve, on_question)

    def tune(self, items: Sequence[QAItem], pipeline: str = "paths", k: int = 5, *, save: bool = True) -> TuneReport:
        """Fit λ of a λ-fused pipeline on labelled ``items`` and (``save``) store it in the workspace, where
        the pipeline reads it unless its config table sets ``fusion_lambda``."""
        built = self._querying.pipeline(pipeline)
        if not any(isinstance(step, FuseLambda) for step in built.steps):
            raise KgragError(f"pipeline {pipeline!r} has no λ fusion step to tune (try `paths`)")
        self._querying.require_chunks()
        wide = replace(built, steps=tuple(s for s in built.steps if s.name != "fit_budget"))
        ctx = self._parts.query_context
        threshold = self._parts.config.evaluation.evidence_overlap
        report = tune_lambda(items, pipeline, k, threshold, lambda q: wide.run(q, ctx, WIDE), DEFAULT_LAMBDA)
        if not report.questions:
            raise KgragError("no question in the dataset has evidence to tune against")
        if save:
            with self._parts.store.transaction():
                self._parts.store.meta.set(lambda_key(pipeline), str(report.best))
        return report

    def runs(self) -> list[EvalRunInfo]:
        """Evaluation reports written under ``<workspace>/reports`` (``kgrag eval ... `` without ``--out``),
        newest first. Unreadable files are skipped: a listing must not fail on one bad report."""
        root = self._parts.path / REPORTS_DIR
        found: list[EvalRunInfo] = []
        for path in sorted(root.rglob(f"*{REPORT_SUFFIX}")) if root.is_dir() else []:
            payload = _read_report(path)
            if payload is None:
                continue
            run_id = path.relative_to(root).as_posix().removesuffix(REPORT_SUFFIX)
            summary = payload.get("summary")
            pipelines = sorted(summary) if isinstance(summary, dict) else []
            k = payload.get("k")
            found.append(
                EvalRunInfo(
                    id=run_id,
                    kind=path.name.removesuffix(REPORT_SUFFIX),
                    dataset=str(payload.get("dataset", "")),
                    k=k if isinstance(k, int) else None,
                    pipelines=pipelines,
                    written_at=path.stat().st_mtime,
                )
            )
        return sorted(found, key=lambda run: -run.written_at)

    def report(self, run_id: str) -> dict[str, Any] | None:
        """The stored report ``run_id`` (an id from :meth:`runs`), or None. Ids are matched against the
        listing, never joined into a path, so no id can read a file outside ``reports/``."""
        if run_id not in {run.id for run in self.runs()}:
            return None
        return _read_report(self._parts.path / REPORTS_DIR / f"{run_id}{REPORT_SUFFIX}")


def _read_report(path: Path) -> dict[str, Any] | None:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return payload if isinstance(payload, dict) else None
