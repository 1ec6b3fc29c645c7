"""The evaluation service of one workspace: retrieval evaluations, metric runs, pairwise comparisons and
question generation, over the workspace's parts and registries (``ws.eval`` delegates here)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord
from kgrag.core.progress import Progress
from kgrag.core.registries import Registries
from kgrag.documents import TokenCounter
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.evidence_check import check_evidence
from kgrag.evaluation.judges.base import JUDGES, AnswerJudge, JudgeSetup
from kgrag.evaluation.metrics.base import METRICS, Metric
from kgrag.evaluation.metrics.profiles import profile_names
from kgrag.evaluation.qgen import QGenResult
from kgrag.evaluation.qgen.generate import PerKind
from kgrag.evaluation.recall import usable_evidence
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport, evaluate_retrieval
from kgrag.evaluation.runner import RunMode, RunParts, RunPlan, run_evaluation
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.service.ports import EvalParts, Querying
from kgrag.evaluation.service.qgen import GeneratorChoice, default_kinds, generate
from kgrag.evaluation.service.requests import EvalRequest, PairwiseRequest, Questions, questions_of
from kgrag.evaluation.service.stored import StoredRuns
from kgrag.evaluation.service.stored_retrieval import store_retrieval_run
from kgrag.evaluation.session import (
    EvalRun,
    JudgeFactory,
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
from kgrag.evaluation.verdicts import default_baseline
from kgrag.models.llm import LLMClient, build_provider, create_llm_client
from kgrag.models.llm.registry import LLM_PROVIDERS
from kgrag.prompts.loader import PROMPT_SCHEMAS

OnQuestion = Callable[[], None] | None
Setup = JudgeSetup | None


class EvalService:
    """Evaluations over ``parts`` and ``querying``, with the metrics, judges, LLM providers and prompt
    schemas of ``registries`` (the workspace's own, passed in, never rebuilt from the built-ins).
    ``judge_factory`` builds a judge client for a model name (None = the configured model); tests replace
    it with scripted clients."""

    def __init__(self, parts: EvalParts, querying: Querying, registries: Registries) -> None:
        self._parts = parts
        self._querying = querying
        self._registries = registries
        self.judge_factory: JudgeFactory = self._judge_client
        self.stored = StoredRuns(parts.store)

    def _judge_client(self, model: str | None) -> LLMClient:
        llm = self._parts.config.llm
        config = llm if model is None else llm.model_copy(update={"model": model})
        provider = build_provider(config, self._registries.get(LLM_PROVIDERS))
        return create_llm_client(
            config,
            self._parts.store,
            run_id=new_eval_id("judge"),
            provider=provider,
            prompt_schemas=self._registries.get(PROMPT_SCHEMAS),
        )

    def check(self, pipelines: Sequence[str]) -> None:
        """Unknown pipelines and an empty workspace fail before any question runs."""
        if not pipelines:
            raise KgragError("name at least one pipeline to evaluate (see `kgrag pipelines`)")
        for name in pipelines:
            self._querying.pipeline(name)
        self._querying.require_chunks()

    def retrieval(
        self, items: Questions, pipelines: Sequence[str], k: int, on_question: OnQuestion = None
    ) -> RetrievalEvalReport:
        """Evidence recall per question type for each pipeline, each named once (see ``ws.eval.retrieval``)."""
        questions, pipelines = questions_of(items), once(pipelines)
        self.check(pipelines)
        if questions and not any(usable_evidence(q.evidence) for q in questions):
            which = "the question has" if len(questions) == 1 else f"none of the {len(questions)} questions has"
            raise KgragError(
                f"{which} evidence to score (an 'evidence' list of sentences from the documents); evidence recall "
                "needs it: add it, make questions with `kgrag eval qgen`, or score answers with `kgrag eval run`"
            )
        config = self._parts.config
        prepare = self._querying.shared_preparation(pipelines)
        budgets = {p: config.retrieval.context_tokens_for(p) for p in pipelines}
        threshold = config.evaluation.evidence_overlap
        report = evaluate_retrieval(
            questions, list(pipelines), k, threshold, self._querying.retrieve, on_question, prepare, budgets
        )
        report.evidence = check_evidence(questions, (c.text for c in self._parts.store.chunks.iter_all()), threshold)
        return report

    def retrieval_run(
        self, items: Questions, pipelines: Sequence[str], k: int, dataset: str, label: str, on_question: OnQuestion
    ) -> EvalRun:
        """:meth:`retrieval`, stored as an evaluation run."""
        questions = questions_of(items)
        report = self.retrieval(questions, pipelines, k, on_question)
        return self.store_retrieval(questions, report, dataset, label)

    def store_retrieval(self, items: Questions, report: RetrievalEvalReport, dataset: str, label: str = "") -> EvalRun:
        """Store ``report`` (of :meth:`retrieval` over ``items``) as an evaluation run, as a server's job does."""
        return store_retrieval_run(self._parts.store, questions_of(items), report, dataset, label)

    @staticmethod
    def sample(items: Questions, n: int | None, seed: int = 0) -> tuple[list[QAItem], str]:
        """A stratified, seeded sample of ``n`` questions and the note a run records (all, no note, when
        ``n`` is None or not smaller than the set)."""
        questions = questions_of(items)
        if n is None or n >= len(questions):
            return questions, ""
        return stratified_sample(questions, n, seed), f"stratified sample of {n} of {len(questions)} (seed {seed})"

    def default_metrics(self) -> list[str]:
        """``evaluation.default_metrics``, else every metric whose registry entry is in the default set."""
        return list(self._parts.config.evaluation.default_metrics) or self._registries.get(METRICS).default_names()

    def run(self, request: EvalRequest, on_question: OnQuestion = None) -> EvalRun:
        """Answer, score, store and summarise one metric run (see :class:`EvalRequest`), each pipeline once."""
        request = replace(request, pipelines=once(request.pipelines))
        questions = self._check_run(request)
        plan = self._plan(request)
        metrics = pick(self._registries.get(METRICS), plan.metrics, "metric")
        judges = pick(self._registries.get(JUDGES), plan.judges, "judge")
        wants_judge = bool(judges) or plan.mode != "llm-free"
        temperature = request.options.judge_temperature
        setup = judge_setup(self._parts.config, self.judge_factory, temperature=temperature) if wants_judge else None
        if judges and setup is None:
            raise KgragError("judges need an LLM: set llm.provider (see docs/llm.md)")
        run_id, parts = new_eval_id("run"), self._run_parts(metrics, judges, setup)
        with fresh_calls(self._parts.llm_if_configured(), setup, not request.options.reuse_answers):
            output = run_evaluation(questions, plan, parts, run_id, on_question)
        payload = {
            "id": run_id,
            "plan": plan.__dict__,
            "questions": len(questions),
            "sample": request.sample,
            "dataset": request.dataset,
            "judge": judge_disclosure(setup, metrics, judges, plan.mode != "llm-free"),
            "models": self._models(),
            "settings": scoring_settings(self._parts.config.evaluation),
            **provenance_summary(plan, request.options.bootstrap, output.traces, setup),
        }
        record = EvalRunRecord(run_id, "run", time.time(), request.dataset, request.label, payload)
        self._parts.store.eval_runs.save(record, output.scores, output.traces)
        return finish(record, output.scores)

    def _plan(self, request: EvalRequest) -> RunPlan:
        config = self._parts.config
        pipelines = list(request.pipelines)
        plan = RunPlan(
            pipelines,
            list(request.metrics or self.default_metrics()),
            request.runs or config.evaluation.runs,
            self._mode(request.mode),
            list(request.judges),
            request.k or config.retrieval.k,
            request.options.reuse_answers,
            request.options.baseline or default_baseline(pipelines),
        )
        metrics = profile_names(plan.metrics, config.evaluation.metric_profile, self._registries.get(METRICS))
        return replace(plan, metrics=metrics)

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

    def _check_run(self, request: EvalRequest) -> list[QAItem]:
        pipelines, baseline = request.pipelines, request.options.baseline
        self.check(pipelines)
        if baseline is not None and baseline not in pipelines:
            raise KgragError(f"--baseline {baseline!r} is not one of --pipelines ({', '.join(pipelines)})")
        if not (questions := questions_of(request.items)):
            raise KgragError("the dataset has no questions")
        return questions

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

    def pairwise(self, items: Questions, request: PairwiseRequest, on_question: OnQuestion = None) -> EvalRunRecord:
        """Answer with two pipelines and compare with a pairwise judge (:func:`.pairwise.pairwise_run`)."""
        from kgrag.evaluation.service.pairwise import pairwise_run

        self.check([request.a, request.b])
        questions = questions_of(items)
        return pairwise_run(
            self._parts, self._querying, self._registries, self.judge_factory, questions, request, on_question
        )

    def qgen(
        self,
        kinds: Sequence[str] | None,
        per_kind: PerKind | None,
        *,
        seed: int,
        llm: GeneratorChoice,
        judge_model: str | None,
        on_question: OnQuestion,
        llm_check: bool = True,
        progress: Progress | None = None,
    ) -> QGenResult:
        """Generate questions (:mod:`.qgen`): ``kinds`` None = the generator's defaults, ``per_kind`` one
        count or a count per kind (None, or a kind left out: 10 attempts per LLM kind, 60 questions per
        LLM-free kind); ``llm_check=False`` leaves out the model's answerability check; ``progress`` is told
        how the generation goes."""
        chosen = list(kinds) if kinds else list(default_kinds(self._parts, llm))
        judge = self.judge_factory
        return generate(
            self._parts,
            chosen,
            per_kind,
            seed=seed,
            llm=llm,
            judge=judge,
            judge_model=judge_model,
            on_question=on_question,
            llm_check=llm_check,
            progress=progress,
        )


def once(names: Sequence[str]) -> list[str]:
    """``names`` in order, each once: a pipeline named twice would count every question twice."""
    return list(dict.fromkeys(names))


def _tokens(llm: LLMClient) -> int:
    """Prompt + completion tokens of every call this client's run made so far (cache hits included)."""
    total = llm.summary().total
    return total.prompt_tokens + total.completion_tokens
