"""``ws.eval``: evaluation runs over this workspace's pipelines (the CLI and a server call these)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord, EvalTrace
from kgrag.documents import TokenCounter
from kgrag.evaluation import evaluate_retrieval
from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.judges.base import JUDGES, AnswerJudge, JudgeSetup
from kgrag.evaluation.metrics.base import METRICS, Metric
from kgrag.evaluation.metrics.profiles import profile_names
from kgrag.evaluation.pairwise.report import write_pairwise_report
from kgrag.evaluation.pairwise.types import PairwiseSettings
from kgrag.evaluation.qgen import QGenResult
from kgrag.evaluation.reports import write_run_report
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.runner import RunMode, RunOptions, RunParts, RunPlan, run_evaluation
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.session import (
    EvalRun,
    JudgeFactory,
    compare_baseline,
    finish,
    fresh_calls,
    judge_disclosure,
    judge_setup,
    metric_tools,
    new_eval_id,
    pick,
    provenance_summary,
    scoring_settings,
)
from kgrag.evaluation.tune import TuneReport
from kgrag.evaluation.tune_reranker import RerankerTuneReport
from kgrag.evaluation.tune_router import RouterTuneReport
from kgrag.evaluation.verdicts import default_baseline
from kgrag.models.llm import LLMClient, build_provider, create_llm_client
from kgrag.workspace.components import Components
from kgrag.workspace.eval_pairwise import PairwiseRequest, pairwise_run
from kgrag.workspace.eval_stored_retrieval import store_retrieval_run
from kgrag.workspace.eval_tuning import tune_fused_reranker, tune_lambda_of
from kgrag.workspace.kinds import llm_providers, prompt_schemas
from kgrag.workspace.qgen_api import GeneratorChoice, default_kinds, generate, uses_llm
from kgrag.workspace.query_api import QueryAPI

Questions = Sequence[QAItem] | str | Path
"""Labelled questions, or the path of a GraphRAG-Bench .json/.jsonl file holding them (str or Path)."""


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
        # the workspace's providers and prompt schemas, like its own client's
        provider = build_provider(config, llm_providers(self._parts))
        return create_llm_client(
            config,
            self._parts.store,
            run_id=new_eval_id("judge"),
            provider=provider,
            prompt_schemas=prompt_schemas(self._parts),
        )

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

    def retrieval_run(
        self,
        items: Questions,
        pipelines: Sequence[str],
        k: int,
        *,
        dataset: str = "",
        label: str = "",
        on_question: Callable[[], None] | None = None,
    ) -> EvalRun:
        """:meth:`retrieval`, stored as an evaluation run (listed and read like ``kgrag eval run``'s)."""
        questions = _questions(items)
        report = self.retrieval(questions, pipelines, k, on_question)
        return store_retrieval_run(self._parts.store, questions, report, dataset, label)

    @staticmethod
    def sample(items: Questions, n: int | None, seed: int = 0) -> tuple[list[QAItem], str]:
        """A stratified, seeded sample of ``n`` questions (same type mix) and the note a run records; all
        of them, and no note, when ``n`` is None or not smaller than the set."""
        questions = _questions(items)
        if n is None or n >= len(questions):
            return questions, ""
        return stratified_sample(questions, n, seed), f"stratified sample of {n} of {len(questions)} (seed {seed})"

    def default_metrics(self) -> list[str]:
        """What a run scores when it names no metrics: ``evaluation.default_metrics``, else every metric
        whose registry entry is in the default set (built-ins, plug-ins and this workspace's own)."""
        return (
            list(self._parts.config.evaluation.default_metrics) or self._parts.registries.get(METRICS).default_names()
        )

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
        options: RunOptions | None = None,
    ) -> EvalRun:
        """Answer every question with every pipeline ``runs`` times (new answers each run unless
        ``options.reuse_answers``), score with ``metrics`` (LLM-free, judged or both) and ``judges``, store
        the run with a trace per answer and return it with intervals, paired differences and verdicts."""
        config = self._parts.config
        opts = options or RunOptions()
        questions = self._check_run(pipelines, items, opts)
        chosen_mode = self._mode(mode)
        plan = RunPlan(
            list(pipelines),
            list(metrics or self.default_metrics()),
            runs or config.evaluation.runs,
            chosen_mode,
            list(judges),
            k or config.retrieval.k,
            opts.reuse_answers,
            opts.baseline or default_baseline(list(pipelines)),
        )
        registry = self._parts.registries.get(METRICS)
        plan = replace(plan, metrics=profile_names(plan.metrics, config.evaluation.metric_profile, registry))
        metric_objs = pick(registry, plan.metrics, "metric")
        judge_objs = pick(self._parts.registries.get(JUDGES), plan.judges, "judge")
        wants_judge = bool(judge_objs) or chosen_mode != "llm-free"
        setup = judge_setup(config, self.judge_factory, temperature=opts.judge_temperature) if wants_judge else None
        if judge_objs and setup is None:
            raise KgragError("judges need an LLM: set llm.provider (see docs/llm.md)")
        run_id, parts = new_eval_id("run"), self._run_parts(metric_objs, judge_objs, setup)
        with fresh_calls(self._parts.llm_if_configured(), setup, not opts.reuse_answers):
            output = run_evaluation(questions, plan, parts, run_id, on_question)
        payload = {
            "id": run_id,
            "plan": plan.__dict__,
            "questions": len(questions),
            "sample": sample,
            "dataset": dataset,
            "judge": judge_disclosure(setup, metric_objs, judge_objs, chosen_mode != "llm-free"),
            "models": self._models(),
            "settings": scoring_settings(config.evaluation),
            **provenance_summary(plan, opts.bootstrap, output.traces, setup),
        }
        record = EvalRunRecord(run_id, "run", time.time(), dataset, label, payload)
        self._parts.store.eval_runs.save(record, output.scores, output.traces)
        return finish(record, output.scores)

    def _mode(self, mode: RunMode | None) -> RunMode:
        """The run's mode: as asked, else LLM-free without an LLM and both kinds of metric with one."""
        provider = self._parts.config.llm.provider
        chosen: RunMode = mode or ("llm-free" if provider == "none" else "both")
        if chosen != "llm-free" and provider == "none":
            raise KgragError("LLM-judged metrics need an LLM: set llm.provider, or use --mode llm-free")
        return chosen

    def _models(self) -> dict[str, str]:
        llm = self._parts.config.llm
        return {"embedding": self._parts.embedding_model_id, "llm": f"{llm.provider}:{llm.model or ''}"}

    def _check_run(self, pipelines: Sequence[str], items: Questions, opts: RunOptions) -> list[QAItem]:
        self._check(pipelines)
        if opts.baseline is not None and opts.baseline not in pipelines:
            raise KgragError(f"--baseline {opts.baseline!r} is not one of --pipelines ({', '.join(pipelines)})")
        if not (questions := _questions(items)):
            raise KgragError("the dataset has no questions")
        return questions

    def traces(self, run_id: str, question_id: str | None = None) -> list[EvalTrace]:
        """The provenance of a stored run (``latest`` allowed): answers, context items, judge calls."""
        return self._parts.store.eval_runs.traces(self.get_run(run_id).record.id, question_id)

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
        """Fit λ of a λ-fused pipeline on labelled ``items`` and (``save``) store it in the workspace (see
        :func:`kgrag.workspace.eval_tuning.tune_lambda_of`)."""
        return tune_lambda_of(
            self._parts, self._querying, _questions(items), pipeline, k, save=save, holdout=holdout, seed=seed
        )

    def tune_reranker(self, items: Questions, *, holdout: float = 0.0, seed: int = 0) -> RerankerTuneReport:
        """Fit the ``fused`` reranker's weights on labelled ``items`` (see
        :func:`kgrag.workspace.eval_tuning.tune_fused_reranker`); nothing is stored."""
        return tune_fused_reranker(self._parts, self._querying, _questions(items), holdout=holdout, seed=seed)

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

    def get_run(self, run_id: str, baseline: str | None = None) -> EvalRun:
        """A stored run with its scores, summary and statistics (paired against ``baseline``, default the
        one it ran with); ``latest`` is the newest metric run."""
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
        return finish(record, store.scores(run_id), baseline)

    def report(self, run_ids: Sequence[str], out_dir: Path, baseline: str | None = None) -> dict[str, Path]:
        """Markdown + JSON + PNG plots for one or more stored runs (several runs are compared in one table,
        each pipeline labelled ``NAME @RUN``, paired on the questions they share); ``baseline`` overrides
        the pipeline differences are taken against."""
        if not run_ids:
            raise KgragError("name at least one run (see `kgrag eval list`)")
        kinds = {(r.kind if (r := self._parts.store.eval_runs.get(i)) else "run") for i in run_ids}
        if kinds == {"pairwise"}:
            return self.pairwise_report(run_ids, out_dir)
        if len(kinds) > 1:
            raise KgragError("report metric runs and pairwise runs separately")
        runs = [self.get_run(r, baseline if len(run_ids) == 1 else None) for r in run_ids]
        if len(runs) == 1:
            return write_run_report(runs[0], out_dir)
        scores = [
            replace(s, pipeline=f"{s.pipeline} @{run.record.id}", run_id="compare") for run in runs for s in run.scores
        ]
        names = [
            f"{p} @{run.record.id}" for run in runs for p in run.record.payload.get("plan", {}).get("pipelines", [])
        ]
        payload = {
            "id": "compare-" + "-".join(r.record.id for r in runs),
            "compared": [r.record.payload for r in runs],
            "plan": {"pipelines": names, "baseline": compare_baseline(baseline, names)},
            "bootstrap": runs[0].record.payload.get("bootstrap"),
        }
        record = EvalRunRecord(str(payload["id"]), "run", time.time(), "", "", payload)
        return write_run_report(finish(record, scores), out_dir)

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
        aa_check: bool = False,
    ) -> EvalRunRecord:
        """Answer every question with pipelines ``a`` and ``b`` and compare the answers with a pairwise
        judge (``unbiased`` or ``two-pass``); stored as a ``pairwise`` run and returned (see
        :func:`kgrag.workspace.eval_pairwise.pairwise_run`)."""
        self._check([a, b])
        request = PairwiseRequest(a, b, judge, settings, k, dataset, aa_check)
        return pairwise_run(self._parts, self._querying, self.judge_factory, _questions(items), request, on_question)

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
        kinds: Sequence[str] | None,
        per_kind: int | None = None,
        *,
        seed: int = 0,
        llm: GeneratorChoice = "auto",
        judge_model: str | None = None,
        on_question: Callable[[], None] | None = None,
    ) -> QGenResult:
        """Generate questions (see :mod:`kgrag.workspace.qgen_api`): with ``llm="none"`` (or no LLM
        configured) known-item questions from the chunks; else with the configured LLM from the graph
        and chunks, checked against their cited passages by ``judge_model`` (default: the same model).
        ``kinds`` None = the default kinds of that generator; ``per_kind`` None = 10 with an LLM, 60
        without."""
        chosen = list(kinds) if kinds else list(default_kinds(self._parts, llm))
        count = per_kind or (10 if uses_llm(self._parts, llm) else 60)
        return generate(
            self._parts,
            chosen,
            count,
            seed=seed,
            llm=llm,
            judge=self.judge_factory,
            judge_model=judge_model,
            on_question=on_question,
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
