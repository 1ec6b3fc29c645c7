"""Learning ``auto``'s routing policy (``kgrag tune router``) over a workspace: which pipelines, how to
retrieve and featurise, where the policy is stored (the learning itself: :mod:`kgrag.tuning.router_fit`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.documents import TokenCounter
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.retrieval.requirements import enforce_requirements
from kgrag.retrieval.steps.router_policy import POLICY_KEY, question_features
from kgrag.tuning.evidence_folds import evidence_folds
from kgrag.tuning.ports import Querying, TuneParts
from kgrag.tuning.router_fit import OutcomeCache, RouterTuneReport, Scorer, collect_rows, cross_validate

CANDIDATES = ("rerank", "combined", "graph-mix-rerank", "hybrid", "dense", "bm25")
"""Pipelines offered to the policy when none are named: LLM-free ones that read the chunks differently
(reranked, expanded, graph-mixed, fused, one retriever each). Those that cannot run here (no graph yet)
are left out."""
ROUTERS = {"auto"}


def candidate_pipelines(parts: TuneParts, querying: Querying, names: Sequence[str] | None) -> list[str]:
    """The named pipelines (each must exist and be able to run here), or the runnable :data:`CANDIDATES`."""
    ctx = parts.query_context
    chosen: list[str] = []
    for name in dict.fromkeys(names or CANDIDATES):
        if name in ROUTERS:
            raise KgragError(f"--pipelines: {name!r} is the router being fitted; name the pipelines it may choose")
        try:
            pipeline = querying.pipeline(name)
            enforce_requirements(pipeline.name, pipeline.requires, ctx)
        except KgragError:
            if names:
                raise
            continue
        chosen.append(name)
    if len(chosen) < 2:
        raise KgragError("--pipelines: the router needs at least two pipelines that can run in this workspace")
    return chosen


def fingerprint(parts: TuneParts) -> str:
    """What the cached outcomes depend on besides the question: the index's sizes and the retrieval and
    rerank settings (a re-index or a changed setting scores the questions again)."""
    store = parts.store
    graph = store.graph.counts()
    config = parts.config
    text = "|".join(
        [
            parts.embedding_model_id,
            str(store.chunks.count()),
            str(store.vectors.count(parts.vector_key)),
            str(graph.get("entities", 0)),
            str(graph.get("relations", 0)),
            config.retrieval.model_dump_json(),
            config.rerank.model_dump_json(),
            str(config.evaluation.evidence_overlap),
        ]
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def tune_router(
    parts: TuneParts,
    querying: Querying,
    items: list[QAItem],
    pipelines: Sequence[str] | None,
    folds: int,
    seed: int,
    save: bool,
    cache: Path | None,
    on_step: Callable[[str], None] | None,
) -> RouterTuneReport:
    """Learn the policy on ``items`` over ``pipelines`` (None: the runnable :data:`CANDIDATES`), with a
    ``folds``-fold cross-validated report; ``save`` stores the policy fitted on all questions, where
    ``auto`` then uses it; ``cache`` keeps per-question outcomes to resume from."""
    querying.require_chunks()
    labelled = [item for item in items if item.evidence]  # the questions ``rows`` holds, in this order
    if not labelled:
        raise KgragError("no question in the dataset has evidence to tune against")
    names = candidate_pipelines(parts, querying, pipelines)
    ctx = parts.query_context
    scorer = Scorer(parts.config.evaluation.evidence_overlap, TokenCounter.for_encoding().count)
    rows = collect_rows(
        labelled,
        names,
        lambda question, name: querying.retrieve(question, name),
        lambda question: question_features(question, ctx),
        scorer,
        OutcomeCache(cache, fingerprint(parts)),
        on_step,
    )
    chunks = ChunkWords(chunk.text for chunk in parts.store.chunks.iter_all())
    split = evidence_folds(labelled, chunks, folds, seed, parts.config.evaluation.evidence_overlap)
    report = cross_validate(rows, names, folds, seed, fold_of=split.fold)
    report.fold_rule = (
        f"questions sharing a main evidence passage kept in one fold ({split.groups} groups, "
        f"the largest {split.largest_group} questions)"
    )
    if save:
        with parts.store.transaction():
            parts.store.meta.set(POLICY_KEY, report.policy.to_json())
        report.stored = True
    return report


def forget_policy(parts: TuneParts) -> bool:
    """Remove a stored routing policy (``auto`` decides by LLM or heuristics again); False if none was."""
    if not parts.store.meta.get(POLICY_KEY):
        return False
    with parts.store.transaction():
        parts.store.meta.set(POLICY_KEY, "")
    return True
