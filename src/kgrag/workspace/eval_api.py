"""``ws.eval``: evaluation runs over this workspace's pipelines (the CLI and a server call these); the work
is done by :class:`kgrag.evaluation.service.EvalService`, which :class:`Components` builds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.core.eval_records import EvalRunRecord, EvalTrace
from kgrag.core.progress import Progress
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.pairwise.types import PairwiseSettings
from kgrag.evaluation.qgen import QGenResult
from kgrag.evaluation.qgen.generate import PerKind
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.runner import RunMode, RunOptions
from kgrag.evaluation.service import EvalRequest, EvalService, PairwiseRequest, Questions
from kgrag.evaluation.service.qgen import GeneratorChoice
from kgrag.evaluation.session import EvalRun, JudgeFactory
from kgrag.tuning import TuningService
from kgrag.tuning.lambda_fit import TuneReport
from kgrag.tuning.reranker_fit import RerankerTuneReport
from kgrag.tuning.router_fit import RouterTuneReport
from kgrag.workspace.components import Components
from kgrag.workspace.query_api import QueryAPI

__all__ = ["EvalAPI", "Questions"]


class EvalAPI:
    """Evaluations: evidence recall, metric/judge runs stored for later comparison, pairwise
    comparisons and question generation. ``judge_factory`` builds a judge client for a model name
    (None = the configured model); tests replace it with scripted clients."""

    def __init__(self, parts: Components, querying: QueryAPI) -> None:
        self._parts = parts
        self._querying = querying
        self._service: EvalService = parts.eval_service(querying)
        self._tuning: TuningService = parts.tuning_service(querying)

    @property
    def judge_factory(self) -> JudgeFactory:
        return self._service.judge_factory

    @judge_factory.setter
    def judge_factory(self, factory: JudgeFactory) -> None:
        self._service.judge_factory = factory

    def retrieval(
        self, items: Questions, pipelines: Sequence[str], k: int, on_question: Callable[[], None] | None = None
    ) -> RetrievalEvalReport:
        """Evidence recall@k per question type for each pipeline, over all context and over passages
        only, with the context tokens each pipeline hands over (so more context cannot pass for better
        retrieval). Unknown pipelines and an empty workspace fail before any question runs."""
        return self._service.retrieval(items, pipelines, k, on_question)

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
        return self._service.retrieval_run(items, pipelines, k, dataset, label, on_question)

    def store_retrieval(
        self, items: Questions, report: RetrievalEvalReport, *, dataset: str = "", label: str = ""
    ) -> EvalRun:
        """Store ``report`` (:meth:`retrieval` over ``items``, its ``baseline`` kept) as an evaluation run,
        the way :meth:`retrieval_run` does, so a caller that also writes the report lists it with the rest."""
        return self._service.store_retrieval(items, report, dataset, label)

    @staticmethod
    def sample(items: Questions, n: int | None, seed: int = 0) -> tuple[list[QAItem], str]:
        """A stratified, seeded sample of ``n`` questions (same type mix) and the note a run records; all
        of them, and no note, when ``n`` is None or not smaller than the set."""
        return EvalService.sample(items, n, seed)

    def default_metrics(self) -> list[str]:
        """What a run scores when it names no metrics: ``evaluation.default_metrics``, else every metric
        whose registry entry is in the default set (built-ins, plug-ins and this workspace's own)."""
        return self._service.default_metrics()

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
        the run with a trace per answer and return it with intervals, paired differences and verdicts
        (:class:`~kgrag.evaluation.service.EvalRequest`)."""
        chosen = options or RunOptions()
        request = EvalRequest(items, pipelines, metrics, runs, mode, judges, k, dataset, label, sample, chosen)
        return self._service.run(request, on_question)

    def traces(self, run_id: str, question_id: str | None = None) -> list[EvalTrace]:
        """The provenance of a stored run (``latest`` allowed): answers, context items, judge calls."""
        return self._service.stored.traces(run_id, question_id)

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
        """The older spelling of ``ws.tune.fusion_lambda`` (:meth:`kgrag.tuning.TuningService.fusion_lambda`)."""
        return self._tuning.fusion_lambda(items, pipeline, k, save=save, holdout=holdout, seed=seed)

    def tune_reranker(self, items: Questions, *, holdout: float = 0.0, seed: int = 0) -> RerankerTuneReport:
        """The older spelling of ``ws.tune.reranker`` (:meth:`kgrag.tuning.TuningService.reranker`)."""
        return self._tuning.reranker(items, holdout=holdout, seed=seed)

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
        """The older spelling of ``ws.tune.router`` (:meth:`kgrag.tuning.TuningService.router`)."""
        return self._tuning.router(items, pipelines, folds=folds, seed=seed, save=save, cache=cache, on_step=on_step)

    def forget_router_policy(self) -> bool:
        """The older spelling of ``ws.tune.forget_router`` (:meth:`kgrag.tuning.TuningService.forget_router`)."""
        return self._tuning.forget_router()

    def runs(self, kind: str | None = None) -> list[EvalRunRecord]:
        """Stored evaluation runs, newest first (``kind``: ``run`` or ``pairwise``)."""
        return self._service.stored.runs(kind)

    def get_run(self, run_id: str, baseline: str | None = None) -> EvalRun:
        """A stored run with its scores, summary and statistics (paired against ``baseline``, default the
        one it ran with); ``latest`` is the newest metric run."""
        return self._service.stored.get_run(run_id, baseline)

    def report(self, run_ids: Sequence[str], out_dir: Path, baseline: str | None = None) -> dict[str, Path]:
        """Markdown + JSON + PNG plots for one or more stored runs (several runs are compared in one table,
        each pipeline labelled ``NAME @RUN``, paired on the questions they share); ``baseline`` overrides
        the pipeline differences are taken against."""
        return self._service.stored.report(run_ids, out_dir, baseline)

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
        :func:`kgrag.evaluation.service.pairwise.pairwise_run`)."""
        request = PairwiseRequest(a, b, judge, settings, k, dataset, aa_check)
        return self._service.pairwise(items, request, on_question)

    def pairwise_report(self, run_ids: Sequence[str], out_dir: Path) -> dict[str, Path]:
        """Markdown + JSON + box plots + relative-win-rate heat map for stored pairwise runs."""
        return self._service.stored.pairwise_report(run_ids, out_dir)

    def qgen(
        self,
        kinds: Sequence[str] | None,
        per_kind: PerKind | None = None,
        *,
        seed: int = 0,
        llm: GeneratorChoice = "auto",
        judge_model: str | None = None,
        on_question: Callable[[], None] | None = None,
        llm_check: bool = True,
        progress: Progress | None = None,
    ) -> QGenResult:
        """Generate questions (see :mod:`kgrag.evaluation.service.qgen`): with ``llm="none"`` (or no LLM
        configured) known-item questions from the chunks; else with the configured LLM from the graph
        and chunks, checked against their cited passages by ``judge_model`` (default: the same model;
        ``llm_check=False`` leaves that model check out, the checks that need no model stay), plus the
        LLM-free kinds among ``kinds`` in the same set. ``kinds`` None = the default kinds of that
        generator; ``per_kind``: one count for every kind or a count per kind name (None, or a kind left
        out: 10 attempts per LLM kind, 60 questions per LLM-free kind). ``progress`` (e.g. the CLI's bars or
        lines, :mod:`kgrag.core.progress`) is told how the generation goes: the model's attempts, or the
        parsing and search of the documents, which take most of an LLM-free run."""
        return self._service.qgen(
            kinds,
            per_kind,
            seed=seed,
            llm=llm,
            judge_model=judge_model,
            on_question=on_question,
            llm_check=llm_check,
            progress=progress,
        )
