"""``ws.eval``: evaluation runs over this workspace's pipelines (the CLI and a server call these)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord
from kgrag.documents import TokenCounter
from kgrag.evaluation import evaluate_retrieval
from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.judges.base import AnswerJudge, JudgeSetup, judge_registry
from kgrag.evaluation.metrics.base import Metric, metric_registry
from kgrag.evaluation.metrics.profiles import profile_names
from kgrag.evaluation.pairwise.collect import answer_pairs, pairwise_scores, pairwise_settings
from kgrag.evaluation.pairwise.report import write_pairwise_report
from kgrag.evaluation.pairwise.types import PairwiseSettings
from kgrag.evaluation.qgen import QGenResult, generate_questions
from kgrag.evaluation.qgen.sources import SourceSampler
from kgrag.evaluation.reports import write_run_report
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.runner import RunMode, RunParts, RunPlan, run_evaluation
from kgrag.evaluation.session import (
    EvalRun,
    JudgeFactory,
    finish,
    judge_disclosure,
    judge_setup,
    metric_tools,
    new_eval_id,
    pick,
)
from kgrag.evaluation.tune import WIDE, TuneReport, tune_lambda
from kgrag.evaluation.tune_reranker import (
    RerankerTuneReport,
    ScoredPool,
    score_pool,
    tune_fused_weights,
)
from kgrag.evaluation.tune_router import RouterTuneReport
from kgrag.models.llm import LLMClient, create_llm_client
from kgrag.models.rerankers.fused import FusedReranker, FusedWeights
from kgrag.retrieval.budget import FitBudget, item_tokens
from kgrag.retrieval.paths import DEFAULT_LAMBDA, FuseLambda, lambda_key
from kgrag.workspace.components import Components
from kgrag.workspace.query_api import QueryAPI

Questions = Sequence[QAItem] | str | Path
"""Labelled questions, or the path of a GraphRAG-Bench .json/.jsonl file holding them (str or Path)."""

LLM_FREE_METRICS = ["evidence-recall", "context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness"]


class EvalAPI:
    """Evaluations: evidence recall, metric/judge runs stored for later comparison, pairwise
    comparisons and question generation. ``judge_factory`` builds a judge client for a model name
    (None = the configured model); tests replace it with scripted clients."""

    def __init__(self, parts: Components, querying: QueryAPI) -> None:
        self._parts = parts
        self._querying = querying
        self.judge_factory: JudgeFactory = self._judge_client

    def _judge_client(self, model: str | None) -> LLMClient:
        llm = self._parts.config.llm
        config = llm if model is None else llm.model_copy(update={"model": model})
        return create_llm_client(config, self._parts.store, run_id=new_eval_id("judge"))

    def _check(self, pipelines: Sequence[str]) -> None:
        if not pipelines:
            raise KgragError("name at least one pipeline to evaluate (see `kgrag pipelines`)")
        for name in pipelines:
            self._querying.pipeline(name)
        self._querying.require_chunks()

    def retrieval(
        self,
        items: Questions,
        pipelines: Sequence[str],
        k: int,
        on_question: Callable[[], None] | None = None,
    ) -> RetrievalEvalReport:
        """Evidence recall@k per question type for each pipeline, over all context and over passages
        only, with the context tokens each pipeline hands over (so more context cannot pass for better
        retrieval). Unknown pipelines and an empty workspace fail before any question runs."""
        questions = _questions(items)
        self._check(pipelines)
        threshold = self._parts.config.evaluation.evidence_overlap
        return evaluate_retrieval(questions, list(pipelines), k, threshold, self._querying.retrieve, on_question)

    def run(
        self,
        items: Questions,
        pipelines: Sequence[str],
        *,
        metrics: Sequence[str] | None = None,
        runs: int | None = None,
        mode: RunMode | None = None,
        judges: Sequence[str] = (),
        k: int | None = None,
        dataset: str = "",
        label: str = "",
        sample: str = "",
        on_question: Callable[[], None] | None = None,
    ) -> EvalRun:
        """Answer every question with every pipeline ``runs`` times, score with ``metrics`` (LLM-free,
        judged or both; default: judged too when an LLM is configured) and ``judges``, store the run in
        the workspace database and return it with its summary (mean ± std over runs)."""
        config = self._parts.config
        self._check(pipelines)
        if not (questions := _questions(items)):
            raise KgragError("the dataset has no questions")
        chosen_mode: RunMode = mode or ("llm-free" if config.llm.provider == "none" else "both")
        if chosen_mode != "llm-free" and config.llm.provider == "none":
            raise KgragError("LLM-judged metrics need an LLM: set llm.provider, or use --mode llm-free")
        plan = RunPlan(
            list(pipelines),
            list(metrics or LLM_FREE_METRICS),
            runs or config.evaluation.runs,
            chosen_mode,
            list(judges),
            k or config.retrieval.k,
        )
        registry = metric_registry()
        plan = replace(plan, metrics=profile_names(plan.metrics, config.evaluation.metric_profile, registry))
        metric_objs = pick(registry, plan.metrics, "metric")
        judge_objs = pick(judge_registry(), plan.judges, "judge")
        setup = judge_setup(config, self.judge_factory) if (judge_objs or chosen_mode != "llm-free") else None
        if judge_objs and setup is None:
            raise KgragError("judges need an LLM: set llm.provider (see docs/llm.md)")
        run_id = new_eval_id("run")
        scores = run_evaluation(questions, plan, self._run_parts(metric_objs, judge_objs, setup), run_id, on_question)
        payload = {
            "id": run_id,
            "plan": plan.__dict__,
            "questions": len(questions),
            "sample": sample,
            "dataset": dataset,
            "judge": judge_disclosure(setup, metric_objs, judge_objs, chosen_mode != "llm-free"),
            "models": {
                "embedding": self._parts.embedding_model_id,
                "llm": config.llm.provider + ":" + str(config.llm.model or ""),
            },
        }
        record = EvalRunRecord(run_id, "run", time.time(), dataset, label, payload)
        self._parts.store.eval_runs.save(record, scores)
        return finish(record, scores)

    def _run_parts(
        self, metrics: dict[str, Metric], judges: dict[str, AnswerJudge], setup: JudgeSetup | None
    ) -> RunParts:
        llm = self._parts.llm_if_configured()
        return RunParts(
            query=self._querying.query,
            metrics=metrics,
            judges=judges,
            tools=metric_tools(self._parts.config, self._parts.embedder(), setup),
            count_tokens=TokenCounter.for_encoding().count,
            setup=setup,
            llm_tokens=(lambda: _tokens(llm)) if llm is not None else None,
        )

    def tune(
        self,
        items: Questions,
        pipeline: str = "paths",
        k: int = 5,
        *,
        save: bool = True,
        holdout: float = 0.0,
        seed: int = 0,
    ) -> TuneReport:
        """Fit λ of a λ-fused pipeline on labelled ``items`` and (``save``) store it in the workspace, where
        the pipeline reads it unless its config table sets ``fusion_lambda``. ``holdout`` > 0 fits on all
        but that stratified, ``seed``-ed share and scores the share at the fitted λ, at the λ in use now and
        dense alone (``report.holdout``)."""
        built = self._querying.pipeline(pipeline)
        fuse = next((step for step in built.steps if isinstance(step, FuseLambda)), None)
        if fuse is None:
            raise KgragError(f"pipeline {pipeline!r} has no λ fusion step to tune (try `paths`)")
        self._querying.require_chunks()
        wide = replace(built, steps=tuple(s for s in built.steps if s.name != "fit_budget"))
        ctx = self._parts.query_context
        threshold = self._parts.config.evaluation.evidence_overlap
        current, _ = fuse.resolve(ctx)
        report = tune_lambda(
            _questions(items), pipeline, k, threshold, lambda q: wide.run(q, ctx, WIDE), DEFAULT_LAMBDA,
            holdout=holdout, seed=seed, current=current,
        )  # fmt: skip
        if not report.questions:
            raise KgragError("no question in the dataset has evidence to tune against")
        if save:
            with self._parts.store.transaction():
                self._parts.store.meta.set(lambda_key(pipeline), str(report.best))
        return report

    def tune_reranker(self, items: Questions, *, holdout: float = 0.0, seed: int = 0) -> RerankerTuneReport:
        """Fit the ``fused`` reranker's weights on labelled ``items`` over the ``rerank`` pipeline's pool
        (hybrid search cut to its pool, hydrated), at that pipeline's k and context budget. Nothing is
        stored: the report carries the ``[rerank]`` lines to put in kgrag.toml (``report.toml()``)."""
        built = self._querying.pipeline("rerank")
        self._querying.require_chunks()
        first_stage = built.before("rerank")
        budget = next(step.tokens for step in built.steps if isinstance(step, FitBudget))
        ctx = self._parts.query_context
        config = self._parts.config
        threshold = config.evaluation.evidence_overlap
        k = config.retrieval.k
        pool_size = config.retrieval.pool_for("rerank")

        current = FusedWeights.from_config(config.rerank)
        resources = self._parts.rerank_resources()
        filler = FusedReranker(current, resources.similarities, resources.sentence_similarities)

        def pool_of(item: QAItem) -> ScoredPool:
            pool = [i for i in first_stage.run(item.question, ctx, pool_size).items if i.kind == "chunk"]
            return score_pool(item, pool, lambda candidate: item_tokens(candidate, ctx), threshold, filler)

        report = tune_fused_weights(_questions(items), pool_of, current, k, budget, holdout=holdout, seed=seed)
        if not report.questions:
            raise KgragError("no question in the dataset has evidence to tune against")
        return report

    def tune_router(
        self,
        items: Questions,
        pipelines: Sequence[str] | None = None,
        *,
        folds: int = 5,
        seed: int = 0,
        save: bool = True,
        cache: Path | None = None,
        on_step: Callable[[str], None] | None = None,
    ) -> RouterTuneReport:
        """Learn ``auto``'s routing policy on labelled ``items`` (:mod:`kgrag.evaluation.tune_router`):
        ``folds``-fold cross-validated report, and (``save``) the policy fitted on all questions stored in
        the workspace, where ``auto`` then uses it. ``cache`` keeps per-question outcomes to resume from."""
        from kgrag.workspace.router_tuning import tune_router

        return tune_router(self._parts, self._querying, _questions(items), pipelines, folds, seed, save, cache, on_step)

    def forget_router_policy(self) -> bool:
        """Remove a stored routing policy, so ``auto`` decides by LLM or heuristics again; False if none was
        stored."""
        from kgrag.workspace.router_tuning import forget_policy

        return forget_policy(self._parts)

    def runs(self, kind: str | None = None) -> list[EvalRunRecord]:
        """Stored evaluation runs, newest first (``kind``: ``run`` or ``pairwise``)."""
        return self._parts.store.eval_runs.runs(kind)

    def get_run(self, run_id: str) -> EvalRun:
        """A stored run with its scores and summary; ``latest`` is the newest metric run."""
        store = self._parts.store.eval_runs
        if run_id == "latest":
            newest = store.runs("run")
            if not newest:
                raise KgragError("no evaluation runs stored yet; run `kgrag eval run` first")
            run_id = newest[0].id
        record = store.get(run_id)
        if record is None:
            known = ", ".join(r.id for r in store.runs()[:5]) or "none yet"
            raise KgragError(f"no evaluation run {run_id!r} in this workspace (recent: {known})")
        return finish(record, store.scores(run_id))

    def report(self, run_ids: Sequence[str], out_dir: Path) -> dict[str, Path]:
        """Markdown + JSON + PNG plots for one or more stored runs (several runs are compared in one table,
        each pipeline labelled with its run)."""
        if not run_ids:
            raise KgragError("name at least one run (see `kgrag eval list`)")
        kinds = {(r.kind if (r := self._parts.store.eval_runs.get(i)) else "run") for i in run_ids}
        if kinds == {"pairwise"}:
            return self.pairwise_report(run_ids, out_dir)
        if len(kinds) > 1:
            raise KgragError("report metric runs and pairwise runs separately")
        runs = [self.get_run(r) for r in run_ids]
        if len(runs) == 1:
            return write_run_report(runs[0].record.payload, runs[0].summary, out_dir)
        merged = {f"{p} @{run.record.id}": rows for run in runs for p, rows in run.summary.items()}
        payload = {"id": "compare-" + "-".join(r.record.id for r in runs), "compared": [r.record.payload for r in runs]}
        return write_run_report(payload, merged, out_dir)

    def pairwise(
        self,
        items: Questions,
        a: str,
        b: str,
        *,
        judge: str = "unbiased",
        settings: PairwiseSettings | None = None,
        k: int | None = None,
        dataset: str = "",
        on_question: Callable[[], None] | None = None,
    ) -> EvalRunRecord:
        """Answer every question with pipelines ``a`` and ``b`` and compare the answers with a pairwise
        judge (``unbiased`` or ``two-pass``); the result is stored as a ``pairwise`` run and returned."""
        config = self._parts.config
        self._check([a, b])
        setup = judge_setup(config, self.judge_factory)
        if setup is None:
            raise KgragError("pairwise judging needs an LLM judge: set llm.provider (see docs/llm.md)")
        judge_obj = pick(judge_registry(), [judge], "judge")[judge]
        if not hasattr(judge_obj, "compare"):
            raise KgragError(f"judge {judge!r} scores single answers; use `kgrag eval run --judge {judge}`")
        chosen = settings or pairwise_settings(config.evaluation)
        pairs = answer_pairs(_questions(items), a, b, lambda q, p: self._querying.query(q, p, k), on_question)
        result = judge_obj.compare(pairs, setup, chosen)
        run_id = new_eval_id("pairwise")
        payload = {
            "id": run_id,
            "a": a,
            "b": b,
            "judge_name": judge,
            "dataset": dataset,
            "questions": len(pairs),
            "settings": chosen.__dict__,
            "judge": setup.describe(judge_obj.prompts),
            "result": result,
        }
        record = EvalRunRecord(run_id, "pairwise", time.time(), dataset, f"{a} vs {b}", payload)
        self._parts.store.eval_runs.save(record, pairwise_scores(run_id, a, b, result))
        return record

    def pairwise_report(self, run_ids: Sequence[str], out_dir: Path) -> dict[str, Path]:
        """Markdown + JSON + box plots + relative-win-rate heat map for stored pairwise runs."""
        payloads = []
        for run_id in run_ids:
            record = self._parts.store.eval_runs.get(run_id)
            if record is None or record.kind != "pairwise":
                raise KgragError(f"no pairwise run {run_id!r} in this workspace (see `kgrag eval list`)")
            payloads.append(record.payload)
        return write_pairwise_report(payloads, out_dir)

    def qgen(
        self,
        kinds: Sequence[str],
        per_kind: int,
        *,
        seed: int = 0,
        on_question: Callable[[], None] | None = None,
    ) -> QGenResult:
        """Generate questions from this workspace's graph (node/edge/subgraph) and chunks
        (answer-given/single-fact/multi-fact) with the configured LLM, de-duplicated and checked."""
        config = self._parts.config
        if config.llm.provider == "none":
            raise KgragError("question generation needs an LLM: set llm.provider (see docs/llm.md)")
        self._querying.require_chunks()
        sampler = SourceSampler(self._parts.store, seed, config.evaluation.qgen_min_subgraph_nodes)
        return generate_questions(
            sampler, self._parts.llm(), kinds, per_kind, config.evaluation.qgen_dedup_threshold, on_question=on_question
        )


def _tokens(llm: LLMClient) -> int:
    """Prompt + completion tokens of every call this client's run made so far (cache hits included)."""
    total = llm.summary().total
    return total.prompt_tokens + total.completion_tokens


def _questions(items: Questions) -> list[QAItem]:
    """``items`` as a list, read from the dataset file first when ``items`` is its path."""
    if isinstance(items, str | Path):
        return load_dataset(Path(items))
    return list(items)
