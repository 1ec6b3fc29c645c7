"""Fitting retrieval's knobs on labelled questions: λ of a λ-fused pipeline (``kgrag tune lambda``) and the
``fused`` reranker's weights (``kgrag tune reranker``)."""

from __future__ import annotations

from dataclasses import replace

from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.models.rerankers.fused import FusedReranker, FusedWeights
from kgrag.models.rerankers.settings import FusedSettings
from kgrag.retrieval.steps.budget import FitBudget, item_tokens
from kgrag.retrieval.steps.paths import DEFAULT_LAMBDA, FuseLambda, lambda_key
from kgrag.tuning.lambda_fit import WIDE, TuneReport, tune_lambda
from kgrag.tuning.ports import Querying, TuneParts
from kgrag.tuning.reranker_fit import RerankerTuneReport, ScoredPool, score_pool, tune_fused_weights


def tune_lambda_of(
    parts: TuneParts,
    querying: Querying,
    items: list[QAItem],
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
    built = querying.pipeline(pipeline)
    fuse = next((step for step in built.steps if isinstance(step, FuseLambda)), None)
    if fuse is None:
        raise KgragError(f"pipeline {pipeline!r} has no λ fusion step to tune (try `paths`)")
    querying.require_chunks()
    wide = replace(built, steps=tuple(s for s in built.steps if s.name != "fit_budget"))
    ctx = parts.query_context
    threshold = parts.config.evaluation.evidence_overlap
    current, _ = fuse.resolve(ctx)
    report = tune_lambda(
        items, pipeline, k, threshold, lambda q: wide.run(q, ctx, WIDE), DEFAULT_LAMBDA,
        holdout=holdout, seed=seed, current=current,
    )  # fmt: skip
    if not report.questions:
        raise KgragError("no question in the dataset has evidence to tune against")
    if save:
        with parts.store.transaction():
            parts.store.meta.set(lambda_key(pipeline), str(report.best))
    return report


def tune_fused_reranker(
    parts: TuneParts, querying: Querying, items: list[QAItem], *, holdout: float = 0.0, seed: int = 0
) -> RerankerTuneReport:
    """Fit the ``fused`` reranker's weights on labelled ``items`` over the ``rerank`` pipeline's pool
    (hybrid search cut to its pool, hydrated), at that pipeline's k and context budget. Nothing is
    stored: the report carries the ``[rerank]`` lines to put in kgrag.toml (``report.toml()``)."""
    built = querying.pipeline("rerank")
    querying.require_chunks()
    first_stage = built.before("rerank")
    budget = next(step.tokens for step in built.steps if isinstance(step, FitBudget))
    ctx = parts.query_context
    config = parts.config
    threshold = config.evaluation.evidence_overlap
    k = config.retrieval.k
    pool_size = config.retrieval.pool_for("rerank")

    current = FusedWeights.from_settings(config.rerank.settings("fused", FusedSettings))
    resources = parts.rerank_resources()
    filler = FusedReranker(current, resources.similarities, resources.sentence_similarities)

    def pool_of(item: QAItem) -> ScoredPool:
        pool = [i for i in first_stage.run(item.question, ctx, pool_size).items if i.kind == "chunk"]
        return score_pool(item, pool, lambda candidate: item_tokens(candidate, ctx), threshold, filler)

    report = tune_fused_weights(items, pool_of, current, k, budget, holdout=holdout, seed=seed)
    if not report.questions:
        raise KgragError("no question in the dataset has evidence to tune against")
    return report
